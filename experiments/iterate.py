"""Expert iteration: the search plays, a network learns its choices, the new network guides the next search,
generation after generation (the pipeline that made ``exit-v1``, docs/iteration.md).

    python experiments/iterate.py --rules eaai --run-dir runs/exit --generations 2
    python experiments/iterate.py --run-dir runs/exit --resume --generations 4

``--help`` lists the options; the stages and the run folder are described in ``iteration/pipeline.py``. Needs the
``train`` and ``datasets`` extras.
"""

from __future__ import annotations

import sys

from iteration.pipeline import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
