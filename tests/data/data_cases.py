"""tf.data reference cases shared by the TF recorder (tools/record_tf_goldens/data.py) and tests/data.

Each case is a function ``case(tf) -> JSON-able value`` run against real TF 2.21 once (results stored in
tests/goldens/data.json) and against tensorlet in the tests.  No TensorFlow import here.
"""

from __future__ import annotations

import numpy as np


def enc(x):
    """JSON-able form of dataset outputs: nested lists/dicts of Python scalars, bytes as str."""
    if isinstance(x, dict):
        return {str(k): enc(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [enc(v) for v in x]
    if hasattr(x, "numpy"):
        x = x.numpy()
    if isinstance(x, np.ndarray):
        return enc(x.tolist())
    if isinstance(x, bytes):
        return x.decode("latin-1")
    if isinstance(x, np.generic):
        return enc(x.item())
    if isinstance(x, float):
        return round(x, 6)
    return x


def L(ds):
    return [enc(e) for e in ds.as_numpy_iterator()]


def epochs(ds, n=2):
    return [L(ds) for _ in range(n)]


def _shuffle(tf):
    D = tf.data.Dataset
    r = D.range(10)
    out = {
        "s4_seed1": epochs(r.shuffle(4, seed=1)),
        "s4_seed1_noresh": epochs(r.shuffle(4, seed=1, reshuffle_each_iteration=False)),
        "s20_seed3": epochs(r.shuffle(20, seed=3)),
        "s4_seed1_rep": L(r.shuffle(4, seed=1).repeat(2)),
        "s10_seed7_rep3": L(r.shuffle(10, seed=7).repeat(3)),
        "slices_shuffle_batch": epochs(D.from_tensor_slices(np.arange(23)).shuffle(7, seed=11).batch(4)),
        "slices_shuffle_all_batch": L(D.from_tensor_slices((np.arange(12), np.arange(12) * 10))
                                      .shuffle(100, seed=5).batch(5, drop_remainder=True)),
        "slices_take_skip_shard_batch": L(D.from_tensor_slices(np.arange(40)).skip(3).take(30).shard(3, 1)
                                          .shuffle(5, seed=2).repeat(2).batch(4)),
        "random_seed1": L(D.random(seed=1).take(6)),
        "random_rerandomize": epochs(D.random(seed=4, rerandomize_each_iteration=True).take(3)),
        "sample_uniform": L(D.sample_from_datasets([D.range(0, 100), D.range(100, 200)], seed=3).take(12)),
        "sample_weighted": L(D.sample_from_datasets([D.range(0, 100), D.range(100, 200), D.range(200, 300)],
                                                    weights=[0.2, 0.3, 0.5], seed=7).take(12)),
        "sample_exhausted": L(D.sample_from_datasets([D.range(3), D.range(10, 12)], seed=9)),
    }
    tf.random.set_seed(5)
    out["global5_a"] = epochs(r.shuffle(4))
    out["global5_b"] = epochs(r.shuffle(4))
    out["global5_seed2"] = epochs(r.shuffle(4, seed=2))
    tf.random.set_seed(None) if hasattr(tf.random, "set_seed") else None
    return out


def _orders(tf):
    D = tf.data.Dataset
    r = D.range(10)
    return {
        "interleave": L(r.interleave(lambda x: D.range(x % 4), cycle_length=3, block_length=2)),
        "interleave_par": L(r.interleave(lambda x: D.range(x % 4), cycle_length=3, block_length=2,
                                         num_parallel_calls=2)),
        "flat_map": L(D.range(4).flat_map(lambda x: D.range(x))),
        "window": L(r.window(3, 2).flat_map(lambda w: w.batch(3))),
        "window_stride": L(r.window(3, 2, 2).flat_map(lambda w: w.batch(3))),
        "window_drop": L(r.window(3, 2, 2, drop_remainder=True).flat_map(lambda w: w.batch(3))),
        "window_tuple": L(D.zip((D.range(5), D.range(5, 10))).window(2).flat_map(
            lambda a, b: D.zip((a.batch(2), b.batch(2))))),
        "gbw": L(D.range(7).group_by_window(lambda x: 2 - x % 3, lambda k, d: d.batch(5), window_size=5)),
        "gbw2": L(D.range(8).group_by_window(lambda x: (x * 7) % 5, lambda k, d: d.batch(5), window_size=2)),
        "bucket": L(r.map(lambda x: tf.range(x % 4)).bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], [2, 3], [2, 2, 2])),
        "bucket_pad_boundary": L(r.map(lambda x: tf.range(x % 4)).bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], [2, 5], [2, 2, 2], pad_to_bucket_boundary=True)),
        "rebatch": L(D.range(6).batch(4).rebatch(3)),
        "rebatch_list": L(D.range(6).batch(4).rebatch([1, 2])),
        "padded": L(D.range(4).map(lambda x: tf.range(x)).padded_batch(
            2, padded_shapes=[5], padding_values=tf.constant(-1, tf.int64))),
        "padded_tuple": L(D.range(4).map(lambda x: (tf.range(x), tf.strings.as_string(x))).padded_batch(2)),
        "padded_bool": L(D.range(4).map(lambda x: tf.fill([x], True)).padded_batch(2)),
        "unique": L(D.from_tensor_slices([1, 2, 1, 3, 2]).unique()),
        "unique_str": L(D.from_tensor_slices(["a", "b", "a"]).unique()),
        "choose": L(D.choose_from_datasets([D.range(3), D.range(10, 13)],
                                           D.from_tensor_slices(tf.constant([0, 1, 1, 0, 0, 0, 1], tf.int64)))),
        "choose_nostop": L(D.choose_from_datasets(
            [D.range(3), D.range(10, 13)], D.from_tensor_slices(tf.constant([0, 1, 1, 0, 0, 0, 1], tf.int64)),
            stop_on_empty_dataset=False)),
        "scan": L(D.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10))),
        "counter": L(D.counter(2, 3).take(3)),
        "enumerate": L(D.zip((D.range(3), D.range(3, 6))).enumerate(5)),
        "unbatch": L(D.from_tensor_slices(np.arange(12).reshape(3, 2, 2)).unbatch()),
        "dict_slices": L(D.from_tensor_slices({"b": [1, 2], "a": [[1.5, 2.5], [3.5, 4.5]]})),
        "nested_map": L(D.from_tensor_slices(([1, 2], {"k": [3, 4]})).map(lambda a, d: (d["k"] * a, a))),
        "filter": L(r.filter(lambda x: x % 3 == 0)),
        "take_while": L(r.take_while(lambda x: x < 4)),
        "concat": L(D.range(3).concatenate(D.range(7, 9))),
        "range_variants": [L(D.range(5, 0, -2)), L(D.range(2, 8, 3)), L(D.range(1, 4, output_type=tf.float32))],
        "batch_tail": L(D.range(7).batch(3)),
        "repeat_take": L(D.range(3).repeat().take(7)),
        "strings": L(D.from_tensor_slices(["x", "yy"]).batch(2)),
        "gen_tuple": L(D.from_generator(lambda: iter([(1, "a"), (2, "b")]),
                                        output_signature=(tf.TensorSpec((), tf.int32), tf.TensorSpec((), tf.string)))),
        "gen_args": L(D.from_generator(lambda n, s: iter([(n, s)]), output_types=(tf.int64, tf.string),
                                       args=(3, "x"))),
        "reduce": enc(D.range(5).reduce(np.int64(0), lambda s, x: s + x)),
        "single": enc(D.from_tensors(([1, 2], 3.0)).get_single_element()),
    }


def _specs(tf):
    D = tf.data.Dataset
    r = D.range(10)
    inf = r.repeat()
    unk = r.filter(lambda x: True)
    datasets = {
        "slices": D.from_tensor_slices([1, 2, 3]),
        "slices_tuple": D.from_tensor_slices(([1, 2], [[1., 2.], [3., 4.]])),
        "slices_dict": D.from_tensor_slices({"b": [1, 2], "a": np.zeros((2, 3))}),
        "slices_str": D.from_tensor_slices(["a", "b"]),
        "tensors": D.from_tensors([1, 2]),
        "range": r, "range_f": D.range(1, 5, 2, output_type=tf.float32),
        "gen": D.from_generator(lambda: iter([1, 2]), output_signature=tf.TensorSpec((), tf.int32)),
        "gen_legacy": D.from_generator(lambda: iter([1]), output_types=tf.int32),
        "zip": D.zip((r, r)), "zip_args": D.zip(r, r), "zip_dict": D.zip({"x": r, "y": inf}),
        "map": r.map(lambda x: x * 2), "pmap": r.map(lambda x: x * 2, num_parallel_calls=tf.data.AUTOTUNE),
        "map_range": r.map(lambda x: tf.range(x)), "map_tuple": r.map(lambda x: (x, tf.cast(x, tf.float32))),
        "filter": r.filter(lambda x: x > 2), "batch": r.batch(3), "batch_drop": r.batch(3, drop_remainder=True),
        "pbatch": r.batch(3, num_parallel_calls=2), "padded": r.map(lambda x: tf.range(x)).padded_batch(2),
        "padded_drop": r.padded_batch(2, drop_remainder=True), "unbatch": r.batch(2).unbatch(),
        "rebatch": r.batch(4).rebatch(2), "rebatch_drop": r.batch(4, drop_remainder=True).rebatch(2, True),
        "shuffle": r.shuffle(4), "repeat": r.repeat(2), "repeat_inf": inf, "take": r.take(3), "skip": r.skip(3),
        "take_while": r.take_while(lambda x: x < 3), "shard": r.shard(3, 1), "prefetch": r.prefetch(2),
        "cache": r.cache(), "interleave": r.interleave(lambda x: D.range(x), cycle_length=2),
        "pinterleave": r.interleave(lambda x: D.range(x), cycle_length=2, num_parallel_calls=2),
        "flat_map": r.flat_map(lambda x: D.range(x)), "window": r.window(3), "window_shift": r.window(3, 2),
        "window_drop": r.window(3, 2, drop_remainder=True), "enumerate": r.enumerate(),
        "scan": r.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s)), "concat": r.concatenate(r),
        "unique": r.unique(), "gbw": r.group_by_window(lambda x: x % 2, lambda k, d: d.batch(2), window_size=2),
        "ignore": r.ignore_errors(), "opts": r.with_options(tf.data.Options()), "counter": D.counter(),
        "random": D.random(seed=1), "sample": D.sample_from_datasets([r, r], seed=1),
        "choose": D.choose_from_datasets([r, r], D.range(2).repeat(3)), "apply": r.apply(lambda d: d.take(2)),
        "map_dict": D.from_tensor_slices({"x": [1., 2.]}).map(lambda d: d["x"]),
        "filter_inf": inf.filter(lambda x: True), "take_inf": inf.take(5), "take_unk": unk.take(3),
        "skip_inf": inf.skip(3), "skip_unk": unk.skip(2), "skip_big": r.skip(20), "take_neg": r.take(-1),
        "skip_neg": r.skip(-1), "repeat0": r.repeat(0), "repeat_unk": unk.repeat(2), "repeat_unk_inf": unk.repeat(),
        "repeat_empty_inf": r.take(0).repeat(), "concat_unk": r.concatenate(unk), "concat_inf": r.concatenate(inf),
        "zip_inf": D.zip((r, inf)), "zip_unk": D.zip((r, unk)), "zip_unk_inf": D.zip((unk, inf)),
        "batch_inf": inf.batch(3), "batch_unk": unk.batch(3), "shard0": r.shard(3, 0), "shard_inf": inf.shard(2, 0),
        "unbatch_inf": inf.batch(2).unbatch(), "window_inf": inf.window(3), "scan_inf": inf.scan(
            tf.constant(0, tf.int64), lambda s, x: (s, x)), "slice0": D.from_tensor_slices(tf.zeros([0, 3])),
        "range_neg": D.range(5, 0, -2), "range_empty": D.range(5, 0), "gbw_inf": inf.group_by_window(
            lambda x: x % 2, lambda k, d: d.batch(2), window_size=2),
        "bucket": r.map(lambda x: tf.range(x)).bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 6],
                                                                          [2, 2, 2]),
    }
    return {k: [repr(d), int(d.cardinality()), repr(d.element_spec)] for k, d in datasets.items()}


def _errors(tf):
    D = tf.data.Dataset

    def err(f):
        try:
            f()
        except Exception as e:  # noqa: BLE001 - recording the class and message
            name = type(e).__name__
            msg = str(e).split("\n")[0]
            if hasattr(e, "message") and name.endswith("Error") and hasattr(e, "error_code"):
                msg = e.message.split("\n")[0]
            return [name, msg]
        return None

    return {
        "slices_mismatch": err(lambda: D.from_tensor_slices(([1, 2], [1, 2, 3]))),
        "slices_scalar": err(lambda: D.from_tensor_slices(1)),
        "slices_empty": err(lambda: D.from_tensor_slices(())),
        "gen_nosig": err(lambda: D.from_generator(lambda: iter([1]))),
        "batch0": err(lambda: D.range(3).batch(0)),
        "shuffle0": err(lambda: D.range(3).shuffle(0)),
        "range_step0": err(lambda: D.range(0, 3, 0)),
        "range_args": err(lambda: D.range()),
        "shard_index": err(lambda: D.range(3).shard(2, 3)),
        "shard_zero": err(lambda: D.range(3).shard(0, 0)),
        "concat_types": err(lambda: D.range(3).concatenate(D.from_tensor_slices([1.]))),
        "filter_not_bool": err(lambda: D.range(3).filter(lambda x: x)),
        "single_empty": err(lambda: D.range(0).get_single_element()),
        "single_many": err(lambda: D.range(2).get_single_element()),
        "len_inf": err(lambda: len(D.range(2).repeat())),
        "len_unknown": err(lambda: len(D.range(2).filter(lambda x: True))),
        "get_next_end": err(lambda: iter(D.range(0)).get_next()),
        "unbatch_scalar": err(lambda: D.range(3).unbatch()),
        "zip_list": err(lambda: D.zip([D.range(1)])),
        "zip_not_dataset": err(lambda: D.zip((D.range(1), 1))),
        "unique_float": err(lambda: D.from_tensor_slices([1.]).unique()),
        "window0": err(lambda: D.range(3).window(0)),
        "interleave_cycle0": err(lambda: D.range(3).interleave(lambda x: D.range(x), cycle_length=0)),
        "unbatch_mismatch": err(lambda: D.from_tensors((tf.zeros([2]), tf.zeros([3]))).unbatch()),
        "choose_out_of_range": err(lambda: list(D.choose_from_datasets(
            [D.range(2)], D.from_tensor_slices(tf.constant([1], tf.int64))))),
        "batch_shapes": err(lambda: list(D.from_generator(lambda: iter([[1], [1, 2]]),
                                                          output_signature=tf.TensorSpec([None], tf.int32)).batch(2))),
        "padded_too_small": err(lambda: list(D.range(3).map(lambda x: tf.range(x)).padded_batch(
            2, padded_shapes=[1]))),
        "sample_weights_len": err(lambda: D.sample_from_datasets([D.range(2)], weights=[0.5, 0.5])),
        "scan_not_pair": err(lambda: D.range(3).scan(0, lambda s, x: s)),
    }


def _files(tf):
    import gzip
    import os
    import tempfile
    import zlib

    D = tf.data.Dataset
    d = tempfile.mkdtemp()
    p = lambda n: os.path.join(d, n)  # noqa: E731
    with open(p("a.txt"), "wb") as f:
        f.write(b"first\nsecond line\r\n\nlast")
    with open(p("b.txt"), "wb") as f:
        f.write(b"b1\nb2\n")
    with gzip.open(p("c.txt.gz"), "wb") as f:
        f.write(b"g1\ng2\n")
    with open(p("d.txt.z"), "wb") as f:
        f.write(zlib.compress(b"z1\nz2"))
    with open(p("data.csv"), "w") as f:
        f.write("id,score,name,flag\n1,0.5,ann,3\n2,,bob,4\n3,1.25,\"c,d\",5\n40000000000,2.5,eve,6\n")
    for i in range(5):
        with open(p(f"f{i}.bin"), "wb") as f:
            f.write(bytes(range(i, i + 8)))
    base = lambda ds: [os.path.basename(x.decode()) for x in ds.as_numpy_iterator()]  # noqa: E731
    csv_ds = tf.data.experimental.make_csv_dataset(p("data.csv"), batch_size=2, label_name="flag", shuffle=False,
                                                   num_epochs=1)
    out = {
        "text": L(tf.data.TextLineDataset([p("a.txt"), p("b.txt")])),
        "text_parallel": L(tf.data.TextLineDataset([p("a.txt"), p("b.txt")], num_parallel_reads=2)),
        "text_gzip": L(tf.data.TextLineDataset(p("c.txt.gz"), compression_type="GZIP")),
        "text_zlib": L(tf.data.TextLineDataset(p("d.txt.z"), compression_type="ZLIB")),
        "text_repr": repr(tf.data.TextLineDataset(p("a.txt"))),
        "csv": L(tf.data.experimental.CsvDataset(p("data.csv"), [tf.int64, tf.constant(-1.0), tf.string,
                                                                  tf.int32], header=True)),
        "csv_select": L(tf.data.experimental.CsvDataset(p("data.csv"), [tf.constant(0.0), tf.string], header=True,
                                                        select_cols=[1, 2])),
        "csv_repr": repr(tf.data.experimental.CsvDataset(p("data.csv"), [tf.int64], header=True, select_cols=[0])),
        "make_csv_spec": repr(csv_ds.element_spec),
        "make_csv": L(csv_ds),
        "fixed": L(tf.data.FixedLengthRecordDataset([p("f1.bin"), p("f2.bin")], 3, header_bytes=1,
                                                    footer_bytes=1)),
        "list_files_sorted": base(D.list_files(p("f*.bin"), shuffle=False)),
        "list_files_seed": [base(D.list_files(p("f*.bin"), seed=4)) for _ in range(1)],
    }
    tf.random.set_seed(None) if False else None
    return out


CASES = {"shuffle": _shuffle, "orders": _orders, "specs": _specs, "errors": _errors, "files": _files}
