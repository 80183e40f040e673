"""What the three dock widgets share: a form, the image-layer choice, and a run in a worker
thread with a progress bar, Cancel and a one-line status (errors as xcorr raises them, e.g. the
CLI's message for a bad option)."""

import threading

import numpy as np
import xcorr
from qtpy.QtCore import Signal
from qtpy.QtWidgets import (QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel,
                            QLineEdit, QProgressBar, QPushButton, QSpinBox, QVBoxLayout, QWidget)


class RunWidget(QWidget):
    """A dock widget whose Run calls `work(progress=, cancel=)` in a thread and hands its result
    to `done(result)` in the GUI thread. Subclasses fill `self.form` and define work and done."""

    _progressed = Signal(float, float)
    _finished = Signal(object)

    def __init__(self, viewer, run_label):
        super().__init__()
        self.viewer = viewer
        self.result = None  # the last call's result (also for scripts and tests)
        self.form = QFormLayout()
        self.run_button = QPushButton(run_label)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addLayout(buttons)
        layout.addWidget(self.bar)
        layout.addWidget(self.status)
        layout.addStretch(1)
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(self.cancel)
        self._progressed.connect(self._show_progress)
        self._finished.connect(self._end)
        self._cancel = None
        self._thread = None
        self._combos = []  # (combo, layer kind, allow none)
        viewer.layers.events.inserted.connect(self._refresh_layers)
        viewer.layers.events.removed.connect(self._refresh_layers)

    # --- layers -------------------------------------------------------------------------------
    def layer_combo(self, kind="image", none=None):
        """A combo of the viewer's layers of `kind` ("image", "shapes"); `none`: the text of an
        entry for no layer."""
        combo = QComboBox()
        self._combos.append((combo, kind, none))
        self._refresh_layers()
        return combo

    def _refresh_layers(self, *_):
        for combo, kind, none in self._combos:
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            if none:
                combo.addItem(none)
            for layer in self.viewer.layers:
                if layer._type_string == kind:
                    combo.addItem(layer.name)
            active = self.viewer.layers.selection.active
            if current and combo.findText(current) >= 0:
                combo.setCurrentText(current)
            elif active is not None and active._type_string == kind:
                combo.setCurrentText(active.name)
            combo.blockSignals(False)

    def chosen(self, combo):
        """The layer a combo names (None for its no-layer entry)."""
        name = combo.currentText()
        return self.viewer.layers[name] if name in self.viewer.layers else None

    # --- options from xcorr's tables ----------------------------------------------------------
    def option_fields(self, command, keys):
        """Form rows for the options `keys` of `command`, with the CLI's defaults, ranges, choices
        and help; returns a function giving their values as keyword arguments."""
        table = {o["key"]: o for o in xcorr.options(command)}
        editors = {}
        for key in keys:
            o = table[key]
            if o["kind"] == "choice" or (o["kind"] == "text" and o["choices"]):
                e = QComboBox()
                e.addItems(o["choices"])
                e.setEditable(o["kind"] == "text")
                e.setCurrentText(o["default"])
            elif o["kind"] == "integer":
                e = QSpinBox()
                e.setRange(int(max(o["lo"], -2**31)), int(min(o["hi"], 2**31 - 1)))
                e.setValue(int(o["default"]))
            elif o["kind"] == "real":
                e = QDoubleSpinBox()
                e.setDecimals(4)
                e.setRange(max(o["lo"], -1e9), min(o["hi"], 1e9))
                e.setValue(float(o["default"]))
            else:
                e = QLineEdit(o["default"])
            e.setToolTip(o["doc"])
            label = o["label"] + (f" ({o['unit']})" if o["unit"] else "")
            self.form.addRow(label, e)
            editors[key] = e

        def values():
            out = {}
            for key, e in editors.items():
                if isinstance(e, QComboBox):
                    out[key] = e.currentText()
                elif isinstance(e, (QSpinBox, QDoubleSpinBox)):
                    out[key] = e.value()
                else:
                    out[key] = e.text()
            return out

        self.editors = getattr(self, "editors", {})
        self.editors.update(editors)
        return values

    # --- the run ------------------------------------------------------------------------------
    def running(self):
        return self._thread is not None and self._thread.is_alive()

    def run(self):
        if self.running():
            return
        try:
            work = self.prepare()
        except (ValueError, TypeError) as e:
            self.status.setText(f"<span style='color:#d04040'>{e}</span>")
            return
        self._cancel = threading.Event()
        cancel = self._cancel
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.bar.setValue(0)
        self.status.setText("running...")

        def progress(done, total):
            self._progressed.emit(float(done), float(total))
            return True

        def target():
            try:
                outcome = ("ok", work(progress=progress, cancel=cancel))
            except xcorr.Cancelled:
                outcome = ("cancelled", None)
            except Exception as e:  # shown in the status line, one line
                outcome = ("error", e)
            self._finished.emit(outcome)

        self._thread = threading.Thread(target=target, daemon=True)
        self._thread.start()

    def cancel(self):
        if self._cancel is not None:
            self._cancel.set()

    def _show_progress(self, done, total):
        self.bar.setValue(int(1000 * done / total) if total > 0 else 0)

    def _end(self, outcome):
        kind, value = outcome
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if kind == "ok":
            self.bar.setValue(1000)
            self.result = value
            try:
                self.status.setText(self.done(value))
            except (ValueError, TypeError) as e:
                self.status.setText(f"<span style='color:#d04040'>{e}</span>")
        elif kind == "cancelled":
            self.bar.setValue(0)
            self.status.setText("cancelled: nothing was added")
        else:
            self.bar.setValue(0)
            self.status.setText(f"<span style='color:#d04040'>{value}</span>")

    def prepare(self):
        """Reads the form; returns work(progress=, cancel=) (raises ValueError for bad input)."""
        raise NotImplementedError

    def done(self, result):
        """Adds the result's layers; returns the status line."""
        raise NotImplementedError


def frame_axes(layer):
    """The axes of an image layer's data: its reader's (metadata xcorr_axes), else TYX for 3-D
    and TZYX for 4-D data. ValueError for anything else."""
    axes = layer.metadata.get("xcorr_axes")
    if axes and len(axes) == layer.data.ndim:
        return axes
    if layer.rgb:
        raise ValueError(f"'{layer.name}' is an RGB layer: split its channels first")
    guess = {3: "TYX", 4: "TZYX"}.get(layer.data.ndim)
    if guess is None:
        raise ValueError(f"'{layer.name}' is {layer.data.ndim}-D: expected a stack of frames "
                         f"(T, Y, X) or (T, Z, Y, X)")
    return guess


def plane_stack(layer, z):
    """The layer's (T, Y, X) frames at z-plane `z` (for T(Z)YX layers)."""
    axes = frame_axes(layer)
    data = np.asarray(layer.data)
    if "Z" in axes:
        if not 0 <= z < data.shape[axes.index("Z")]:
            raise ValueError(f"'{layer.name}' has {data.shape[axes.index('Z')]} z-planes "
                             f"(numbered from 0): no z-plane {z}")
        data = data.take(z, axis=axes.index("Z"))
        axes = axes.replace("Z", "")
    return np.moveaxis(data, axes.index("T"), 0)


def to_image_pixels(shapes, image, vertices):
    """A shape's vertices (shapes-layer data coordinates) as (row, col) px of `image`."""
    out = []
    for v in vertices:
        world = shapes.data_to_world(v)
        data = image.world_to_data(world)
        out.append(np.asarray(data)[-2:])
    return np.array(out)
