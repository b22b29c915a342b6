"""The batched engine: many hands at once in fixed-shape numpy arrays, stepped by numba kernels (``hand_batch``
holds :class:`HandBatch`, ``kernels`` the compiled step, ``bits`` the bitmask helpers, ``encode`` and
``observation`` the batched observation). It plays the rules of :mod:`gin_env.game` exactly;
``tests/test_batch.py`` holds the two together step by step."""

from gin_env.batch.hand_batch import HandBatch

__all__ = ["HandBatch"]
