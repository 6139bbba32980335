"""The loader's {TF op name: registry ops} table is rebuilt while other threads may be registering ops (op
families load lazily, e.g. when a background compile lowers a function): the rebuild must neither fail nor leave
an op out."""

import sys
import threading
import time

from tensorlet._src.ops.registry import REGISTRY
from tensorlet._src.saved_model import tf_ops


def test_table_rebuild_while_another_thread_registers_ops():
    some_op = REGISTRY["AddV2"]
    stop, errors = threading.Event(), []

    def register():
        i = 0
        while not stop.is_set():
            name = f"_ThreadTestOp{i % 64}"
            REGISTRY[name] = some_op
            time.sleep(0)  # the other thread runs while the dict holds one entry more ...
            REGISTRY.pop(name, None)
            time.sleep(0)  # ... and one less
            i += 1

    t = threading.Thread(target=register)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # hand the GIL over often: the threads interleave inside the rebuild
    t.start()
    try:
        for _ in range(300):
            tf_ops._TABLE["size"] = -1  # force the rebuild
            try:
                table = tf_ops._by_tf_name()
            except RuntimeError as e:  # "dictionary changed size during iteration"
                errors.append(e)
                break
            assert "MatMul" in table and "AddV2" in table
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(interval)
        for i in range(64):
            REGISTRY.pop(f"_ThreadTestOp{i}", None)
        tf_ops._TABLE["size"] = -1
    assert not errors, errors[0]
