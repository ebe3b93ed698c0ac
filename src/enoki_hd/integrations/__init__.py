"""Scale-out on engines a team already runs: :mod:`enoki_hd.integrations.ray` (Ray Data)."""
