"""The benchmark and memory-quality harness: `python -m bench` (or `make bench`).

Every workload is a function `run_<name>(ctx, **params) -> dict` over a `BenchContext` (bench/common.py), so the
same code runs against the platform the CLI starts (its own database, a real Celery worker, a uvicorn server) and
inside the tests (pytest's database and worker) on tiny inputs.
"""
