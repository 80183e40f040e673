"""xcorr.read_stack on files tifffile writes (ImageJ hyperstacks, OME-TIFF): the pages exactly,
in the file's dtype, with the axes and scale the file declares; a file whose metadata disagrees
with its pages is refused by name."""

import numpy as np
import pytest
import tifffile

import xcorr


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_an_imagej_hyperstack_with_its_scale(tmp_path, dtype):
    rng = np.random.default_rng(5)
    h = (rng.random((3, 4, 2, 17, 23)) * 200).astype(dtype)  # T Z C Y X
    tifffile.imwrite(tmp_path / "h.tif", h, imagej=True, resolution=(1 / 0.25, 1 / 0.25),
                     metadata={"axes": "TZCYX", "unit": "um", "spacing": 1.5,
                               "finterval": 0.5})
    a, m = xcorr.read_stack(tmp_path / "h.tif")
    assert m["axes"] == "TCZYX" and a.dtype == dtype
    assert np.array_equal(a, h.transpose(0, 2, 1, 3, 4))
    assert m["pixel_size"] == pytest.approx((0.25, 0.25)) and m["unit"] == "um"
    assert m["frame_interval_s"] == pytest.approx(0.5) and m["spacing_z"] == pytest.approx(1.5)


def test_an_ome_tiff_and_a_plain_stack(tmp_path):
    rng = np.random.default_rng(6)
    s = (rng.random((5, 2, 9, 11)) * 4000).astype(np.uint16)  # T C Y X
    tifffile.imwrite(tmp_path / "s.ome.tif", s, metadata={"axes": "TCYX", "PhysicalSizeX": 0.1,
                                                            "PhysicalSizeY": 0.1,
                                                            "PhysicalSizeXUnit": "µm",
                                                            "PhysicalSizeYUnit": "µm"})
    a, m = xcorr.read_stack(tmp_path / "s.ome.tif")
    assert m["axes"] == "TCYX" and m["source"] == "OME-XML"
    assert np.array_equal(a, s) and m["pixel_size"] == pytest.approx((0.1, 0.1))
    tifffile.imwrite(tmp_path / "p.tif", s[:, 0])
    a, m = xcorr.read_stack(tmp_path / "p.tif")
    assert m["axes"] == "TYX" and np.array_equal(a, s[:, 0]) and m["pixel_size"] is None
    # what read_stack gives, register takes as it is
    r = xcorr.register(*xcorr.read_stack(tmp_path / "s.ome.tif")[:1], axes="TCYX")
    assert r.corrected.shape == s.shape and r.corrected.dtype == np.uint16


def test_metadata_that_disagrees_with_the_pages_is_refused_by_name(tmp_path):
    pages = np.zeros((5, 8, 8), np.uint16)
    tifffile.imwrite(tmp_path / "bad.tif", pages, imagej=True, metadata={"axes": "TYX"})
    # rewrite the description: 2 channels x 3 frames, but the file has 5 pages
    with tifffile.TiffFile(tmp_path / "bad.tif", mode="r+b") as t:
        t.pages[0].tags["ImageDescription"].overwrite(
            "ImageJ=1.11a\nimages=6\nchannels=2\nframes=3\nhyperstack=true\n")
    with pytest.raises(ValueError, match="'bad.tif' has 5 pages but its ImageJ description"):
        xcorr.read_stack(tmp_path / "bad.tif")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        xcorr.read_stack(tmp_path / "none.tif")
