"""XCorr Studio in napari: the dock widgets Correct drift, DIC and Track on the selected image
layer, and a reader that opens stacks with their channels, z-planes and scale (xcorr.read_stack).
Each widget runs its call in a worker thread with a progress bar and Cancel, and adds its results
as layers with the image's scale."""

__version__ = "0.1.0"
