"""The kernels: vectorised per-query values of each measure family over ranked rows."""
