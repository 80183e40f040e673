"""The reader: a TIFF (plain stack, ImageJ hyperstack, OME-TIFF) through xcorr.read_stack, one
image layer per channel with the file's scale; each layer's metadata names its file, channel and
axes, so that Correct drift moves every channel of the file together."""

import xcorr


def get_reader(path):
    if isinstance(path, list) or not str(path).lower().endswith((".tif", ".tiff")):
        return None
    return read


def read(path):
    array, meta = xcorr.read_stack(path)
    return layers(array, meta, str(path))


def layers(array, meta, source):
    """The layer tuples of a read_stack result: channels split, axes without C."""
    axes = meta["axes"]
    channels = array.shape[axes.index("C")] if "C" in axes else 1
    per_channel = axes.replace("C", "")
    spatial = (meta["pixel_size"][1], meta["pixel_size"][0]) if meta["pixel_size"] else (1, 1)
    scale = tuple(meta["spacing_z"] or 1 if a == "Z" else meta["frame_interval_s"] or 1
                  if a == "T" else 1 for a in per_channel[:-2]) + spatial
    names = meta["channel_names"] or [f"c{c}" for c in range(channels)]
    colours = ["magenta", "green", "cyan", "yellow"] if channels > 1 else ["gray"]
    out = []
    for c in range(channels):
        data = array.take(c, axis=axes.index("C")) if "C" in axes else array
        name = source.rsplit("/", 1)[-1] + (f" [{names[c]}]" if channels > 1 else "")
        out.append((data, {"name": name, "scale": scale, "colormap": colours[c % len(colours)],
                           "blending": "additive" if channels > 1 else "translucent",
                           "metadata": {"xcorr_source": source, "xcorr_channel": c,
                                        "xcorr_axes": per_channel,
                                        "xcorr_unit": meta["unit"]}}, "image"))
    return out
