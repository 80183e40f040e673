"""Long calls release the GIL, report progress and stop within a second: on a cancel token, on
a progress callback that returns False or raises, and on Ctrl+C (KeyboardInterrupt, a real
SIGINT to a real interpreter)."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import xcorr

rng = np.random.default_rng(0)
STACK = rng.random((120, 1024, 1024), dtype=np.float32)  # ~5 s of registration on 2 cores

CALLS = {
    "register": lambda **kw: xcorr.register(STACK, device="cpu", **kw),
    "dic": lambda **kw: xcorr.dic(STACK[0], STACK[1:20], subset=21, step=3, device="cpu", **kw),
}


@pytest.mark.parametrize("name", CALLS)
def test_a_cancel_token_stops_the_call_within_a_second_and_the_gil_is_free(name):
    event = threading.Event()
    outcome = {}

    def work():
        try:
            CALLS[name](cancel=event)
            outcome["returned"] = True
        except xcorr.Cancelled as e:
            outcome["cancelled"] = (time.perf_counter(), str(e))

    worker = threading.Thread(target=work)
    worker.start()
    # the GIL is free while the engine works: this thread counts on
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.5:
        count += 1
    assert count > 10000
    set_at = time.perf_counter()
    event.set()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert "cancelled" in outcome, outcome
    assert outcome["cancelled"][0] - set_at < 1.0
    assert "cancelled" in outcome["cancelled"][1]


def test_progress_is_reported_and_false_cancels():
    seen = []
    xcorr.register(STACK[:8], device="cpu", progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1][0] == seen[-1][1] and seen == sorted(seen)
    with pytest.raises(xcorr.Cancelled):
        xcorr.track(STACK[:30], [(100, 100, 40, 40)], progress=lambda d, t: False)
    with pytest.raises(xcorr.Cancelled):
        xcorr.dic(STACK[0, :200, :200], STACK[1:4, :200, :200], progress=lambda d, t: d < 1)


def test_an_exception_in_progress_comes_back_as_it_is():
    def boom(done, total):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        xcorr.register(STACK[:8], device="cpu", progress=boom)


@pytest.mark.parametrize("name", ["register", "dic"])
def test_ctrl_c_raises_keyboard_interrupt_within_a_second(name):
    call = {"register": "xcorr.register(a, device='cpu')",
            "dic": "xcorr.dic(a[0], a[1:20], subset=21, step=3, device='cpu')"}[name]
    # Python makes SIGINT KeyboardInterrupt only where it was not ignored when it started (a
    # shell's background job ignores it): the child sets the handler itself.
    script = textwrap.dedent(f"""
        import signal, sys, time
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import numpy as np
        import xcorr
        a = np.random.default_rng(0).random((120, 1024, 1024), dtype=np.float32)
        print("go", flush=True)
        try:
            for _ in range(20):  # long enough that the signal comes during a call, however late
                {call}
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                         env=os.environ)
    killer = threading.Timer(30, p.kill)  # no runaway process when the call is not interrupted
    killer.start()
    try:
        assert p.stdout.readline().strip() == "go"
        time.sleep(0.5)
        sent = time.perf_counter()
        p.send_signal(signal.SIGINT)
        line = p.stdout.readline().strip()
        answered = time.perf_counter() - sent
        p.wait(timeout=10)
    finally:
        killer.cancel()
        p.kill()
        p.wait()
    assert line == "interrupted"
    assert answered < 1.0, answered
