"""The dock widgets in a real napari viewer (napari's make_napari_viewer fixture, offscreen
Qt), added through the plugin's manifest: each run gives the layers of the xcorr call it makes
(the same numbers as calling xcorr directly), with the image's scale; Cancel stops a run and adds
nothing; bad input is one line in the widget's status."""

import numpy as np
import pytest
import tifffile

import xcorr


def dock(viewer, name):
    _, widget = viewer.window.add_plugin_dock_widget("xcorr-napari", name)
    return widget


def run(qtbot, widget):
    widget.run_button.click()
    qtbot.waitUntil(lambda: not widget.running(), timeout=60000)
    qtbot.wait(50)  # the finished signal reaches the GUI thread


def hyperstack(path, speckle_file):
    """A 2-channel, 2-z-plane uint16 hyperstack with a known drift, scale 0.5 um, 2 s."""
    frames, _ = xcorr.read_stack(speckle_file("s.tif", size=(64, 72), frames=5,
                                              shift=(0.6, -0.9), seed=4))
    h = np.stack([np.stack([frames, frames // 2 + 50], 1)] * 2, 1)  # T Z C Y X
    tifffile.imwrite(path, h, imagej=True, resolution=(2, 2),
                     metadata={"axes": "TZCYX", "unit": "um", "finterval": 2.0})
    return h


def test_the_manifest_names_the_reader_and_the_three_docks(plugin):
    m = plugin.get_manifest("xcorr-napari")
    assert [w.display_name for w in m.contributions.widgets] == ["Correct drift", "DIC", "Track"]
    assert m.contributions.readers[0].filename_patterns == ["*.tif", "*.tiff"]


def test_correct_drift_moves_every_channel_as_xcorr_register(make_napari_viewer, qtbot, plugin,
                                                             tmp_path, speckle_file):
    viewer = make_napari_viewer()
    h = hyperstack(tmp_path / "h.tif", speckle_file)
    layers = viewer.open(tmp_path / "h.tif", plugin="xcorr-napari")
    assert [l.name for l in layers] == ["h.tif [c0]", "h.tif [c1]"]
    assert tuple(layers[0].scale) == (2.0, 1.0, 0.5, 0.5)
    w = dock(viewer, "Correct drift")
    w.image.setCurrentText("h.tif [c1]")
    w.z.setValue(1)
    w.editors["border"].setCurrentText("crop")
    run(qtbot, w)
    expected = xcorr.register(h, axes="TZCYX", channel="1", z=1, border="crop")
    for c in (0, 1):
        moved = viewer.layers[f"h.tif [c{c}] (corrected)"]
        assert np.array_equal(moved.data, expected.corrected[:, :, c])
        assert tuple(moved.scale) == (2.0, 1.0, 0.5, 0.5)
        assert moved.colormap.name == layers[c].colormap.name
    assert np.array_equal(w.result.dx, expected.dx)
    assert abs(w.result.dx[-1] - 4 * -0.9) < 0.1 and abs(w.result.dy[-1] - 4 * 0.6) < 0.1
    assert "drift up to" in w.status.text()


def test_dic_adds_vectors_and_a_map_as_xcorr_dic(make_napari_viewer, qtbot, plugin, tmp_path,
                                                 speckle_file):
    viewer = make_napari_viewer()
    path = speckle_file("d.tif", size=(96, 100), frames=3, shift=(0.4, -0.25),
                        affine=(0.003, 0, 0, -0.002), seed=9)
    (image,) = viewer.open(path, plugin="xcorr-napari")
    image.scale = (1.0, 0.65, 0.65)
    roi = viewer.add_shapes([[12 * 0.65, 10 * 0.65], [80 * 0.65, 90 * 0.65]],
                            shape_type="rectangle", scale=(0.65, 0.65), name="roi")
    roi.data = [np.array([[12, 10], [12, 90], [80, 90], [80, 10]])]
    w = dock(viewer, "DIC")
    w.image.setCurrentText(image.name)
    w.roi.setCurrentText("roi")
    w.editors["subset"].setValue(21)
    w.editors["step"].setValue(6)
    w.field.setCurrentText("exx")
    run(qtbot, w)
    frames, _ = xcorr.read_stack(path)
    expected = xcorr.dic(frames[0], frames[1:], roi="rect:10,12,80,68", subset=21, step=6)
    assert np.array_equal(w.result.u, expected.u, equal_nan=True)
    vectors = viewer.layers[f"{image.name} displacement"]
    ok = expected.status == expected.status_labels.index("converged")
    assert len(vectors.data) == ok.sum()
    assert tuple(vectors.scale) == (1.0, 0.65, 0.65)
    factor = vectors.metadata["xcorr_vector_factor"]
    last = vectors.data[vectors.data[:, 0, 0] == 2]
    assert np.allclose(last[:, 1, 2] / factor, expected.u[1][ok[1]])
    exx = viewer.layers[f"{image.name} exx"]
    assert exx.data.shape == (3,) + expected.x.shape
    assert np.allclose(exx.data[2][ok[1]], expected.exx[1][ok[1]].astype(np.float32))
    assert tuple(exx.scale) == pytest.approx((1.0, 6 * 0.65, 6 * 0.65))


def test_track_adds_the_centres_as_tracks(make_napari_viewer, qtbot, plugin, tmp_path,
                                          speckle_file):
    viewer = make_napari_viewer()
    path = speckle_file("t.tif", size=(80, 80), frames=4, shift=(0.5, 1.0), seed=3)
    (image,) = viewer.open(path, plugin="xcorr-napari")
    viewer.add_shapes([np.array([[20, 15], [20, 45], [44, 45], [44, 15]])],
                      shape_type="rectangle", name="templates")
    w = dock(viewer, "Track")
    w.image.setCurrentText(image.name)
    w.templates.setCurrentText("templates")
    run(qtbot, w)
    frames, _ = xcorr.read_stack(path)
    expected = xcorr.track(frames, [(15, 20, 30, 24)])
    tracks = viewer.layers[f"{image.name} tracks"]
    assert np.allclose(tracks.data[:, 3], expected.x[0] + 29 / 2)
    assert np.allclose(tracks.data[:, 2], expected.y[0] + 23 / 2)
    assert np.max(np.abs(expected.dx[0] - np.arange(4))) < 0.05


def test_cancel_stops_the_run_and_adds_nothing(make_napari_viewer, qtbot, plugin):
    viewer = make_napari_viewer()
    rng = np.random.default_rng(1)
    viewer.add_image(rng.random((30, 1024, 1024), dtype=np.float32), name="big")
    w = dock(viewer, "DIC")
    w.editors["step"].setValue(3)
    w.run_button.click()
    qtbot.wait(300)
    assert w.running()
    w.cancel_button.click()
    qtbot.waitUntil(lambda: not w.running(), timeout=2000)
    qtbot.wait(50)
    assert w.status.text() == "cancelled: nothing was added"
    assert [l.name for l in viewer.layers] == ["big"]


def test_bad_input_is_one_line_in_the_status(make_napari_viewer, qtbot, plugin):
    viewer = make_napari_viewer()
    viewer.add_image(np.zeros((3, 40, 40), np.float32), name="flat")
    viewer.add_shapes([np.array([[5, 5], [30, 30]])], shape_type="line", name="lines")
    w = dock(viewer, "DIC")
    w.roi.setCurrentText("lines")
    w.run_button.click()
    assert "'lines' holds a line: a region of interest is a rectangle" in w.status.text()
    w.roi.setCurrentText("(whole image)")
    w.editors["subset"].setValue(20)
    run(qtbot, w)  # the engine's check, in the worker
    assert "subset 20 px: must be odd" in w.status.text()
    viewer.add_image(np.zeros((40, 40), np.float32), name="one")
    w.image.setCurrentText("one")
    w.run_button.click()
    assert "'one' is 2-D: expected a stack of frames" in w.status.text()
    assert not w.running()


def test_dic_and_track_on_a_hyperstack_sit_at_its_z_plane(make_napari_viewer, qtbot, plugin,
                                                          tmp_path, speckle_file):
    viewer = make_napari_viewer()
    h = hyperstack(tmp_path / "h.tif", speckle_file)
    layers = viewer.open(tmp_path / "h.tif", plugin="xcorr-napari")
    w = dock(viewer, "DIC")
    w.image.setCurrentText(layers[1].name)
    w.z.setValue(1)
    w.editors["subset"].setValue(21)
    run(qtbot, w)
    expected = xcorr.dic(h[0, 1, 1], h[1:, 1, 1], subset=21)
    assert np.array_equal(w.result.u, expected.u, equal_nan=True)
    vectors = viewer.layers["h.tif [c1] displacement"]
    assert vectors.data.shape[2] == 4 and set(vectors.data[:, 0, 1]) == {1.0}
    assert tuple(vectors.scale) == (2.0, 1.0, 0.5, 0.5)
    u_map = viewer.layers["h.tif [c1] u"]
    assert u_map.data.shape == (5, 1) + expected.x.shape
    # drawn over the image (0.5 um px): the shapes layer has its scale
    viewer.add_shapes([np.array([[10, 12], [10, 40], [40, 40], [40, 12]])],
                      shape_type="rectangle", name="templates", scale=(0.5, 0.5))
    t = dock(viewer, "Track")
    t.image.setCurrentText(layers[0].name)
    t.templates.setCurrentText("templates")
    run(qtbot, t)
    assert "template(s)" in t.status.text(), t.status.text()
    tracks = viewer.layers["h.tif [c0] tracks"]
    assert tracks.data.shape == (5, 5) and set(tracks.data[:, 2]) == {0.0}
    assert abs(t.result.dx[0, -1] - 4 * -0.9) < 0.1
