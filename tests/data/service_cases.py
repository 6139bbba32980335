"""tf.data service and the other tf.data.experimental transformations of issue 15, run by real TF
(tools/record_tf_goldens/data_service.py -> tests/goldens/data_service.json) and by tensorlet
(tests/data/test_data_service.py).  Every case starts its own dispatcher and workers in this process and stops
them; results are order-free where TF's are (sorted multisets)."""

import contextlib
import socket
import threading


def _free_port():
    s = socket.socket()
    s.bind(("localhost", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@contextlib.contextmanager
def cluster(tf, workers=2, fixed=False):
    """(dispatcher target, workers); ``fixed``: the dispatcher has a fixed worker list (static sharding)."""
    svc = tf.data.experimental.service
    ports = [_free_port() for _ in range(workers)]
    cfg = svc.DispatcherConfig(worker_addresses=[f"localhost:{p}" for p in ports]) if fixed else None
    d = svc.DispatchServer(cfg)
    addr = d.target.split("://")[1]
    ws = [svc.WorkerServer(svc.WorkerConfig(addr, worker_address=f"localhost:{p}" if fixed else None,
                                            port=p if fixed else 0)) for p in ports]
    try:
        yield d.target, ws
    finally:
        for w in ws:
            w.stop()
        d.stop()


def _ints(ds):
    return sorted(int(x) for x in ds)


def _run(tf, ds_fn, workers=2, fixed=False):
    with cluster(tf, workers, fixed) as (target, _):
        return ds_fn(target)


def _mode(tf, mode, ds=None, workers=2, fixed=False, flat=False):
    svc = tf.data.experimental.service

    def go(target):
        d = (ds or tf.data.Dataset.range(10)).apply(svc.distribute(mode, target))
        if flat:
            return sorted(int(v) for x in d for v in x.numpy().reshape(-1))
        return _ints(d)
    return _run(tf, go, workers, fixed)


def _message(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are the result
        return f"{type(e).__name__}: {e}"
    return "no error"


def _target(tf):
    with cluster(tf, 1) as (target, _):
        host, port = target.rsplit(":", 1)
        return [host, port.isdigit() and int(port) > 0]


def _ids(tf):
    svc = tf.data.experimental.service
    with cluster(tf, 1) as (target, _):
        ds = tf.data.Dataset.range(3)
        a = svc.register_dataset(target, ds)
        b = svc.register_dataset(target, ds)
        c = svc.register_dataset(target, ds, dataset_id="mine")
        same = svc.register_dataset(target, tf.data.Dataset.range(3), dataset_id="mine")
        read = _ints(svc.from_dataset_id("parallel_epochs", target, a))
        spec = repr(svc.from_dataset_id("parallel_epochs", target, c).element_spec)
        return [a, b, c, same, read, spec, int(a.numpy()) + 1 == int(b.numpy())]


def _id_conflict(tf):
    svc = tf.data.experimental.service
    with cluster(tf, 1) as (target, _):
        svc.register_dataset(target, tf.data.Dataset.range(3), dataset_id="x")
        svc.register_dataset(target, tf.data.Dataset.range(5), dataset_id="x")


def _unknown_id(tf):
    svc = tf.data.experimental.service
    with cluster(tf, 1) as (target, _):
        return _message(lambda: svc.from_dataset_id("parallel_epochs", target, "nope"))


def _shared_job(tf):
    svc = tf.data.experimental.service
    with cluster(tf) as (target, _):
        ds = tf.data.Dataset.range(6)
        a = ds.apply(svc.distribute("distributed_epoch", target, job_name="j"))
        b = ds.apply(svc.distribute("distributed_epoch", target, job_name="j"))
        ia, ib = iter(a), iter(b)
        got = [int(next(ia))] + [int(x) for x in ib] + [int(x) for x in ia]
        return sorted(got)


def _job_repetitions(tf):
    """Each iteration of a distributed dataset is the next epoch of its named job; another dataset of the same
    job name joins epoch 0, already finished."""
    svc = tf.data.experimental.service
    with cluster(tf) as (target, _):
        a = tf.data.Dataset.range(4).apply(svc.distribute("distributed_epoch", target, job_name="j"))
        b = tf.data.Dataset.range(7).apply(svc.distribute("distributed_epoch", target, job_name="j"))
        return [_ints(a), _ints(b), _ints(a), _ints(b), _ints(b)]


def _job_mode_mismatch(tf):
    svc = tf.data.experimental.service
    with cluster(tf, 1) as (target, _):
        _ints(tf.data.Dataset.range(3).apply(svc.distribute("distributed_epoch", target, job_name="k")))
        return _ints(tf.data.Dataset.range(3).apply(svc.distribute("parallel_epochs", target, job_name="k")))


def _round_robin(tf, infinite=True):
    svc = tf.data.experimental.service
    with cluster(tf) as (target, _):
        out = {}

        def read(c):
            ds = tf.data.Dataset.range(100)
            ds = ds.repeat() if infinite else ds
            try:
                it = iter(ds.apply(svc.distribute("parallel_epochs", target, job_name="rr", consumer_index=c,
                                                  num_consumers=2)))
                out[c] = [int(next(it)) for _ in range(6)]
            except Exception as e:  # noqa: BLE001
                out[c] = type(e).__name__
        ts = [threading.Thread(target=read, args=(c,), daemon=True) for c in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(60)
        return [out.get(0), out.get(1)]


def _cross_trainer(tf):
    svc = tf.data.experimental.service
    with cluster(tf, 1) as (target, _):
        ds = tf.data.Dataset.range(100).repeat()
        t1 = ds.apply(svc.distribute("parallel_epochs", target, job_name="c",
                                     cross_trainer_cache=svc.CrossTrainerCache("t1")))
        t2 = ds.apply(svc.distribute("parallel_epochs", target, job_name="c",
                                     cross_trainer_cache=svc.CrossTrainerCache("t2")))
        i1, i2 = iter(t1), iter(t2)
        a = [int(next(i1)) for _ in range(5)]
        b = [int(next(i2)) for _ in range(8)]
        return [a, b]


def _ctc_error(tf, job_name, infinite):
    svc = tf.data.experimental.service
    with cluster(tf, 1) as (target, _):
        ds = tf.data.Dataset.range(6)
        ds = ds.repeat() if infinite else ds
        d = ds.apply(svc.distribute("parallel_epochs", target, job_name=job_name,
                                    cross_trainer_cache=svc.CrossTrainerCache("t")))
        return [int(x) for x in d.take(3)]


def _cardinality(tf):
    svc = tf.data.experimental.service
    with cluster(tf, 1) as (target, _):
        ds = tf.data.Dataset.range(6)
        return [svc.distribute("parallel_epochs", target)(ds).cardinality(),
                svc.distribute("parallel_epochs", target)(ds.repeat()).cardinality()]


def _validation(tf):
    svc = tf.data.experimental.service
    ds = tf.data.Dataset.range(3)
    return [_message(lambda: svc.distribute("bogus", "grpc://localhost:1")),
            _message(lambda: svc.distribute(5, "grpc://localhost:1")),
            _message(lambda: svc.distribute("parallel_epochs", "grpc://localhost:1", job_name="")),
            _message(lambda: svc.distribute("parallel_epochs", "grpc://localhost:1", job_name=5)),
            _message(lambda: svc.distribute("parallel_epochs", "grpc://localhost:1", compression="ZIP")),
            _message(lambda: svc.distribute("parallel_epochs", 5)(ds)),
            _message(lambda: svc.distribute("parallel_epochs", "")(ds)),
            _message(lambda: svc.distribute("parallel_epochs", "a://b://c")(ds)),
            _run(tf, lambda t: _message(lambda: svc.distribute("parallel_epochs", t, num_consumers=2,
                                                               consumer_index=0)(ds)), 1),
            _message(lambda: svc.CrossTrainerCache("")),
            _message(lambda: svc.register_dataset("grpc://localhost:1", ds, compression="ZIP"))]


def _sparse_rows(tf):
    return tf.data.Dataset.from_tensor_slices(tf.reshape(tf.range(12, dtype=tf.int64), [3, 4])).map(
        lambda x: x[: tf.cast(x[0] % 3, tf.int32) + 1])


def _sparse(ds):
    out = [repr(ds.element_spec)]
    for x in ds:
        out += [x]
    return out


def _snapshot(tf):
    import tempfile

    d = tempfile.mkdtemp()
    ds = tf.data.Dataset.range(5).map(lambda x: x * 3).snapshot(d)
    first, second = _ints(ds), _ints(ds)
    other = _ints(tf.data.Dataset.range(4).apply(tf.data.experimental.snapshot(d)))
    import os

    return [first, second, other, len(os.listdir(d))]


CASES = {
    "target": _target,
    "parallel_epochs": lambda tf: _mode(tf, "parallel_epochs"),
    "distributed_epoch": lambda tf: _mode(tf, "distributed_epoch"),
    "dynamic_policy": lambda tf: _mode(tf, tf.data.experimental.service.ShardingPolicy.DYNAMIC),
    "distributed_epoch_batched": lambda tf: _mode(tf, "distributed_epoch", tf.data.Dataset.range(10).batch(3),
                                                  flat=True),
    "distributed_epoch_repeat": lambda tf: _mode(tf, "distributed_epoch", tf.data.Dataset.range(3).repeat(2)),
    "distributed_epoch_zip_map": lambda tf: _mode(tf, "distributed_epoch", tf.data.Dataset.zip(
        (tf.data.Dataset.range(5), tf.data.Dataset.range(5))).map(lambda a, b: a * 10 + b)),
    "data_sharding": lambda tf: _mode(tf, tf.data.experimental.service.ShardingPolicy.DATA, fixed=True),
    "file_or_data_sharding": lambda tf: _mode(tf, tf.data.experimental.service.ShardingPolicy.FILE_OR_DATA,
                                              fixed=True),
    "hint_without_placeholder": lambda tf: _mode(tf, tf.data.experimental.service.ShardingPolicy.HINT,
                                                 fixed=True),
    "file_sharding_unshardable": lambda tf: _mode(tf, tf.data.experimental.service.ShardingPolicy.FILE,
                                                  fixed=True),
    "static_sharding_without_worker_list": lambda tf: _mode(tf, tf.data.experimental.service.ShardingPolicy.DATA),
    "dataset_ids": _ids,
    "dataset_id_conflict": _id_conflict,
    "unknown_dataset_id": _unknown_id,
    "shared_job": _shared_job,
    "job_repetitions": _job_repetitions,
    "job_mode_mismatch": _job_mode_mismatch,
    "round_robin": _round_robin,
    "round_robin_finite": lambda tf: _round_robin(tf, infinite=False),
    "cross_trainer_cache": _cross_trainer,
    "cross_trainer_cache_finite": lambda tf: _ctc_error(tf, "c", False),
    "cross_trainer_cache_no_job": lambda tf: _ctc_error(tf, None, True),
    "cardinality": _cardinality,
    "validation": _validation,
    "sharding_policy": lambda tf: [repr(p) for p in tf.data.experimental.service.ShardingPolicy],
    "dispatcher_config": lambda tf: repr(tf.data.experimental.service.DispatcherConfig(port=5)),
    "worker_config": lambda tf: repr(tf.data.experimental.service.WorkerConfig("localhost:5")),
    "service_options": lambda tf: [tf.data.Options().experimental_service.pinned,
                                   type(tf.data.Options().experimental_service).__name__],
    "sparse_batch": lambda tf: _sparse(_sparse_rows(tf).sparse_batch(2, [4])),
    "dense_to_sparse_batch_unknown_dim": lambda tf: _sparse(_sparse_rows(tf).apply(
        tf.data.experimental.dense_to_sparse_batch(2, [-1]))),
    "dense_to_sparse_batch_none_dim": lambda tf: _sparse(_sparse_rows(tf).apply(
        tf.data.experimental.dense_to_sparse_batch(2, [None]))),
    "sparse_batch_rank_mismatch": lambda tf: _sparse(_sparse_rows(tf).sparse_batch(2, [4, 1])),
    "sparse_batch_strings": lambda tf: _sparse(tf.data.Dataset.from_tensor_slices([["a", "b"], ["c", "d"]])
                                               .sparse_batch(2, [3])),
    "sparse_batch_too_long": lambda tf: _sparse(_sparse_rows(tf).sparse_batch(3, [2])),
    "sparse_batch_scalars": lambda tf: _sparse(tf.data.Dataset.range(3).sparse_batch(2, [])),
    "rejection_resample_spec": lambda tf: repr(tf.data.Dataset.range(4).map(lambda x: (tf.cast(x % 2, tf.int32), x))
                                               .rejection_resample(lambda c, x: c, [0.5, 0.5]).element_spec),
    "rejection_resample_fn_spec": lambda tf: repr(tf.data.Dataset.range(4).apply(
        tf.data.experimental.rejection_resample(lambda x: tf.cast(x % 2, tf.int32), [0.5, 0.5], [0.5, 0.5]))
        .element_spec),
    "rejection_resample_identity": lambda tf: [[int(c), int(x)] for c, x in tf.data.Dataset.range(4).map(
        lambda x: tf.cast(x % 2, tf.int32)).rejection_resample(lambda x: x, [0.5, 0.5], [0.5, 0.5])],
    "snapshot": _snapshot,
}
