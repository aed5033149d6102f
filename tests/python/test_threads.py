"""The GIL is released inside kernels: Python threads running kael work overlap."""
import sys
import threading
import time

import kael


def test_python_keeps_running_while_a_kernel_runs():
    """While one thread is inside a long kael operation, another runs Python code. Were the
    GIL held for the operation, the counting loop would be stopped for all of it (this
    measures the lock, not the number of cores, which a busy or small machine lacks)."""
    big = kael.randn(4000, 4000)
    started = threading.Event()

    def long_operation():
        started.set()
        kael.matmul(big, big)

    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)  # hand the GIL over quickly, so holding it would show at once
    try:
        worker = threading.Thread(target=long_operation)
        worker.start()
        started.wait()
        start = time.perf_counter()
        count = 0
        while worker.is_alive():
            count += 1
        elapsed = time.perf_counter() - start
        worker.join()
    finally:
        sys.setswitchinterval(previous)
    assert elapsed > 0.05, "the operation was too short to tell"
    assert count > 10_000, (count, elapsed)


def test_results_are_right_under_concurrent_use():
    x = kael.arange(1000.0)
    expected = (x * 2).sum().item()
    results = []

    def work():
        for _ in range(50):
            results.append((x * 2).sum().item())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 200
