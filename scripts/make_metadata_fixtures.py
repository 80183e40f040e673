#!/usr/bin/env python3
"""Writes the small TIFFs with known scale metadata that tests/core/io/image_metadata_test.cpp
reads (tests/data/metadata/), with tifffile, the writer most microscopy Python code uses.
Run again only to change them: pip install tifffile numpy; python3 scripts/make_metadata_fixtures.py
Each plain file is 3 frames of 8 x 6 px, 16-bit; pixel values are 1000 * frame + 10 * row +
column. The hyperstacks are described below."""
import pathlib

import numpy as np
import tifffile

out = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "metadata"
out.mkdir(parents=True, exist_ok=True)
frames = np.array([[[1000 * t + 10 * r + c for c in range(8)] for r in range(6)] for t in range(3)],
                  dtype=np.uint16)

# OME-TIFF: 0.65 x 0.70 µm pixels, TimeIncrement 2.5 s.
tifffile.imwrite(out / "ome_um.ome.tif", frames, ome=True, photometric="minisblack",
                 metadata={"axes": "TYX", "PhysicalSizeX": 0.65, "PhysicalSizeXUnit": "µm",
                           "PhysicalSizeY": 0.70, "PhysicalSizeYUnit": "µm",
                           "TimeIncrement": 2.5, "TimeIncrementUnit": "s"})
# OME-TIFF: 120 nm pixels, no TimeIncrement; the planes' DeltaT in ms (0, 250, 500).
tifffile.imwrite(out / "ome_nm_deltat.ome.tif", frames, ome=True, photometric="minisblack",
                 metadata={"axes": "TYX", "PhysicalSizeX": 120, "PhysicalSizeXUnit": "nm",
                           "PhysicalSizeY": 120, "PhysicalSizeYUnit": "nm",
                           "Plane": {"DeltaT": [0.0, 250.0, 500.0], "DeltaTUnit": ["ms"] * 3}})
# ImageJ TIFF: 2 px per micron (0.5 µm), frame interval 0.5 min.
tifffile.imwrite(out / "imagej_um.tif", frames, imagej=True, resolution=(2.0, 2.0),
                 metadata={"axes": "TYX", "unit": "micron", "finterval": 0.5, "tunit": "min"})
# Plain TIFF resolution tags: 5000 px per cm (2 µm); and 72 px per inch (not a scale).
tifffile.imwrite(out / "resolution_cm.tif", frames[0], resolution=(5000, 5000),
                 resolutionunit="CENTIMETER")
tifffile.imwrite(out / "display_72dpi.tif", frames[0], resolution=(72, 72),
                 resolutionunit="INCH")
# OME-XML that is not well-formed: no scale, and the image still opens.
tifffile.imwrite(out / "ome_broken.tif", frames[0],
                 description='<?xml version="1.0"?><OME><Image><Pixels PhysicalSizeX="0.5"',
                 metadata=None)
# Hyperstacks: 4 time points x 3 z-planes x 2 channels of 6 x 8 px; every pixel of plane
# (t, z, c) is 1000 t + 100 c + 10 z. ImageJ stores the pages in CZT order (c fastest).
hyper = np.zeros((4, 3, 2, 6, 8), dtype=np.uint16)
for t in range(4):
    for z in range(3):
        for c in range(2):
            hyper[t, z, c] = 1000 * t + 100 * c + 10 * z
tifffile.imwrite(out / "imagej_hyperstack.tif", hyper, imagej=True, resolution=(2.0, 2.0),
                 metadata={"axes": "TZCYX", "unit": "um", "finterval": 3})
# OME-TIFF in another order: axes Z, T, C (DimensionOrder XYCTZ: c fastest, then t, then z).
tifffile.imwrite(out / "ome_hyperstack.ome.tif", hyper.transpose(1, 0, 2, 3, 4), ome=True,
                 photometric="minisblack",
                 metadata={"axes": "ZTCYX", "PhysicalSizeX": 0.2, "PhysicalSizeY": 0.2,
                           "TimeIncrement": 3})
for p in sorted(out.iterdir()):
    print(p.name, p.stat().st_size)
