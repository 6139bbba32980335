"""Cost of passing a tf.Variable as a tf.function argument (traced once per VariableSpec, bound per call)
against closing over it, same run, interleaved rounds; and against real TF when importable.

    python benchmarks/bench_function_var_args.py
"""

import os
import time


def _bench(tf, rounds=5, n=2000):
    v = tf.Variable(tf.zeros([256]))
    x = tf.ones([256])

    @tf.function
    def by_arg(var, g):
        var.assign_add(g)
        return var.read_value()

    @tf.function
    def by_closure(g):
        v.assign_add(g)
        return v.read_value()

    for _ in range(3):
        by_arg(v, x)
        by_closure(x)
    arg_t, clo_t = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            by_arg(v, x)
        arg_t.append((time.perf_counter() - t0) / n)
        t0 = time.perf_counter()
        for _ in range(n):
            by_closure(x)
        clo_t.append((time.perf_counter() - t0) / n)
    return min(arg_t), min(clo_t)


def main():
    import tensorlet

    a, c = _bench(tensorlet)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"tensorlet: variable argument {a * 1e6:.1f} us/call, closure {c * 1e6:.1f} us/call, ratio {a / c:.2f}")
    try:
        import tensorflow
    except ImportError:
        return
    a2, c2 = _bench(tensorflow, n=500)
    print(f"tensorflow: variable argument {a2 * 1e6:.1f} us/call, closure {c2 * 1e6:.1f} us/call, ratio {a2 / c2:.2f}")


if __name__ == "__main__":
    main()
