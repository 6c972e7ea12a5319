"""``make bench``: the speed and size figures a host needs, measured on this machine.

``python -m bench`` prints the machine, then one line per figure (``name value unit``); ``--quick`` runs
every figure at tiny sizes (for the test that checks each is produced), ``--only`` picks some. The
figures, their goals and how they are measured are in ``BENCHMARKS.md``. Nothing here is shipped.
"""
