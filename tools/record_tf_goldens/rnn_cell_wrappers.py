"""Record tf.nn.RNNCell*Wrapper results from real TF into tests/goldens/rnn_cell_wrappers.json
(cases: tests/keras/rnn_cell_wrapper_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/rnn_cell_wrappers.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/keras/rnn_cell_wrapper_cases.py", "rnn_cell_wrappers.json")
