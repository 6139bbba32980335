"""TF 2.21's core surface outside the op modules (ExtensionType and dispatch, tf.config settings, tf.queue,
tf.feature_column, tf.test, tf.train / tf.distribute / tf.tpu config objects, tf.saved_model.experimental) run by
real TF (tools/record_tf_goldens/core_surface.py -> tests/goldens/core_surface.json) and by tensorlet
(tests/platform/test_core_surface.py)."""

import typing


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the error and its message are the result)
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return "no error"


# --- ExtensionType --------------------------------------------------------------------------------------------

def _mt(tf):
    class MaskedTensor(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor
        name: str = "x"

        def __validate__(self):
            self.values.shape.assert_is_compatible_with(self.mask.shape)

    return MaskedTensor


def _et_basics(tf):
    MT = _mt(tf)
    m = MT([1, 2, 3], [True, False, True])
    return [repr(m), repr(m._type_spec), type(MT.Spec).__name__, MT.Spec.__name__, str(m.values.dtype),
            tf.experimental.extension_type.as_dict(m)["name"], isinstance(m._type_spec, tf.TypeSpec),
            isinstance(m._type_spec, tf.experimental.ExtensionTypeSpec)]


def _et_errors(tf):
    MT = _mt(tf)
    m = MT([1, 2, 3], [True, False, True])

    def mutate():
        m.values = 3

    return [_err(mutate), _err(lambda: MT([1, 2], [True])), _err(lambda: MT(values=[1, 2])),
            _err(lambda: MT([1, 2], [True, False], name=3)), _err(lambda: hash(m))]


def _et_nest(tf):
    class R(tf.experimental.ExtensionType):
        rt: tf.RaggedTensor
        d: typing.Mapping[str, tf.Tensor]
        o: typing.Optional[tf.Tensor] = None  # noqa: UP045  (the typing form TF users write)

    r = R(tf.ragged.constant([[1, 2], [3]]), {"b": tf.constant(1), "a": tf.constant([2.0])})
    flat = tf.nest.flatten(r, expand_composites=True)
    r2 = tf.nest.pack_sequence_as(r, [f * 2 for f in flat], expand_composites=True)
    return [[f.dtype.name for f in flat], r2.rt.to_list(), r2.d["a"].numpy().tolist(), r2.o is None]


def _et_function(tf):
    MT = _mt(tf)

    @tf.function
    def f(x):
        return MT(x.values * 2, x.mask, x.name)

    out = f(MT([1, 2, 3], [True, False, True]))
    f(MT([4, 5, 6], [True, True, True]))
    f(MT([4, 5, 6], [True, True, True], "y"))
    f(MT([4, 5], [True, True]))
    return [out.values.numpy().tolist(), out.name, f.experimental_get_tracing_count()]


def _et_equality(tf):
    MT = _mt(tf)
    a = MT([1, 2], [True, False])
    return [bool(a == MT([1, 2], [True, False])), bool(a == MT([1, 3], [True, False])),
            bool(a == MT([1, 2], [True, False], "z")), bool(a != MT([1, 3], [True, False]))]


def _et_spec(tf):
    class P(tf.experimental.BatchableExtensionType):
        x: tf.Tensor
        t: typing.Tuple[int, ...] = ()  # noqa: UP006  (the typing form TF users write)

    p = P([1.0, 2.0], [3, 4])
    s = p._type_spec
    return [repr(P.Spec(tf.TensorSpec([3]), (1,))), p.t, s == P.Spec(tf.TensorSpec([2]), (3, 4)),
            hash(s) == hash(P.Spec.from_value(p)), repr(s.most_specific_common_supertype([P([1.0, 2.0, 3.0],
                                                                                           [3, 4])._type_spec])),
            s.is_compatible_with(P([1.0, 2.0, 3.0], [3, 4])), repr(s._batch(3)),
            _err(lambda: P.Spec(tf.TensorSpec([3])))]


def _et_custom_init(tf):
    class C(tf.experimental.ExtensionType):
        a: tf.Tensor

        def __init__(self, x):
            self.a = x * 2

    return C(tf.constant(3)).a.numpy().tolist()


def _dispatch(tf):
    class MT(tf.experimental.ExtensionType):
        v: tf.Tensor

    out = []

    @tf.experimental.dispatch_for_unary_elementwise_apis(MT)
    def u(api_func, x):
        return MT(api_func(x.v))

    out.append(tf.abs(MT([-1.0])).v.numpy().tolist())
    out.append(tf.math.exp(MT([0.0])).v.numpy().tolist())

    @tf.experimental.dispatch_for_api(tf.math.add, {"x": MT, "y": MT})
    def a(x, y, name=None):
        return MT(x.v + y.v)

    out.append(tf.math.add(MT([1.0]), MT([2.0])).v.numpy().tolist())
    out.append(_err(lambda: tf.math.add(MT([1.0]), 2.0)).split(":")[0])

    @tf.experimental.dispatch_for_api(tf.shape)
    def s(input: MT, out_type=tf.int32, name=None):  # noqa: A002
        return tf.shape(input.v)

    out.append(tf.shape(MT([1.0, 2.0])).numpy().tolist())
    tf.experimental.unregister_dispatch_for(s)
    out.append(_err(lambda: tf.shape(MT([1.0, 2.0]))).split(":")[0])
    out.append(_err(lambda: tf.experimental.unregister_dispatch_for(s)).split(" at ")[0])

    def bad():
        @tf.experimental.dispatch_for_api(tf.math.add, {"z": MT})
        def b(x, y, name=None):
            return None

    out.append(_err(bad))

    @tf.experimental.dispatch_for_binary_elementwise_apis(MT, MT)
    def b(api_func, x, y):
        return MT(api_func(x.v, y.v))

    out.append(tf.math.multiply(MT([2.0]), MT([3.0])).v.numpy().tolist())
    out.append(tf.abs([-2]).numpy().tolist())
    tf.experimental.unregister_dispatch_for(u)
    tf.experimental.unregister_dispatch_for(a)
    tf.experimental.unregister_dispatch_for(b)
    return out


# --- tf.config ------------------------------------------------------------------------------------------------

def _config(tf):
    E, Opt = tf.config.experimental, tf.config.optimizer
    out = [E.get_device_details(tf.config.list_physical_devices("CPU")[0]), E.get_device_policy(),
           _err(lambda: E.set_device_policy("foo")), E.get_synchronous_execution(),
           E.tensor_float_32_execution_enabled(), E.get_memory_usage("CPU:0"), E.reset_memory_stats("CPU:0"),
           Opt.get_experimental_options(), Opt.get_jit()]
    Opt.set_experimental_options({"constant_folding": False, "layout_optimizer": True, "not_an_option": True})
    out.append(sorted(Opt.get_experimental_options().items()))
    Opt.set_experimental_options({"constant_folding": None, "layout_optimizer": None})
    Opt.set_jit(True)
    out.append(Opt.get_jit())
    Opt.set_jit(False)
    out.append(Opt.get_jit())
    E.set_device_policy("explicit")
    out.append(E.get_device_policy())
    E.set_device_policy("silent")
    out.append(tf.config.threading.get_intra_op_parallelism_threads())
    out.append(tf.config.experimental_functions_run_eagerly())
    return out


# --- tf.queue -------------------------------------------------------------------------------------------------

def _queue_fifo(tf):
    q = tf.queue.FIFOQueue(3, [tf.int32, tf.float32], shapes=[[], [2]])
    out = [[d.name for d in q.dtypes], repr(q.shapes), q.names]
    q.enqueue((1, [1.0, 2.0]))
    q.enqueue_many(([2, 3], [[3.0, 4.0], [5.0, 6.0]]))
    out += [q.size(), q.dequeue(), q.dequeue_many(2), _err(lambda: q.enqueue((1.0, [1.0, 2.0]))).split(":")[0],
            _err(lambda: q.enqueue((1, [1.0, 2.0, 3.0])))]
    q.enqueue((7, [0.0, 0.0]))
    q.close()
    out += [q.is_closed(), _err(lambda: q.enqueue((1, [1.0, 2.0]))).split(":")[0], q.dequeue_up_to(3),
            _err(q.dequeue).split(":")[0]]
    return out


def _queue_kinds(tf):
    p = tf.queue.PaddingFIFOQueue(5, [tf.int32], shapes=[[None]])
    p.enqueue([[1]])
    p.enqueue([[1, 2, 3]])
    pq = tf.queue.PriorityQueue(5, [tf.string], shapes=[[]])
    pq.enqueue((tf.constant(5, tf.int64), "five"))
    pq.enqueue((tf.constant(1, tf.int64), "one"))
    rq = tf.queue.RandomShuffleQueue(10, 2, [tf.int32], shapes=[[]], seed=1)
    rq.enqueue_many([[1, 2, 3, 4]])
    x = rq.dequeue()
    rq.close()
    rest = rq.dequeue_up_to(5)
    nq = tf.queue.FIFOQueue(2, [tf.int32, tf.int32], names=["a", "b"], shapes=[[], []])
    nq.enqueue({"a": 1, "b": 2})
    return [p.dequeue_many(2), pq.dequeue(), [d.name for d in pq.dtypes], x.shape.as_list(),
            sorted(rest.numpy().tolist() + [int(x)]), nq.dequeue()]


def _queue_function(tf):
    fq = tf.queue.FIFOQueue(10, tf.float32, shapes=[[]])

    @tf.function
    def step(x):
        fq.enqueue(x * 2)
        return fq.size()

    @tf.function
    def deq():
        return fq.dequeue()

    return [step(tf.constant(1.0)), step(tf.constant(2.0)), deq(), deq()]


# --- tf.feature_column ----------------------------------------------------------------------------------------

def _fc_reprs(tf):
    fc = tf.feature_column
    n = fc.numeric_column("age", shape=(2,), default_value=0.0)
    b = fc.bucketized_column(fc.numeric_column("x"), [0.0, 10.0])
    c = fc.categorical_column_with_vocabulary_list("c", ["a", "b"], num_oov_buckets=1)
    h = fc.categorical_column_with_hash_bucket("h", 10)
    i = fc.categorical_column_with_identity("i", 5, default_value=0)
    e = fc.embedding_column(c, 3)
    return [repr(n), repr(b), repr(c), repr(h), repr(i), repr(fc.crossed_column([b, "h"], 20)),
            repr(fc.indicator_column(c)), e.name, [e.dimension, e.combiner, e.max_norm, e.trainable],
            repr(fc.weighted_categorical_column(i, "wt")), repr(fc.sequence_numeric_column("s")),
            repr(fc.sequence_categorical_column_with_identity("si", 4)),
            [x.name for x in [n, b, c, h, i, fc.indicator_column(c)]],
            [b.num_buckets, c.num_buckets, h.num_buckets, i.num_buckets],
            repr(fc.make_parse_example_spec([n, b, c, h, fc.indicator_column(i), e,
                                             fc.weighted_categorical_column(i, "wt"),
                                             fc.sequence_numeric_column("s")])),
            _err(lambda: fc.numeric_column("a", dtype=tf.string)),
            _err(lambda: fc.bucketized_column(fc.numeric_column("x"), [10.0, 0.0])),
            _err(lambda: fc.embedding_column(c, 0)), _err(lambda: fc.shared_embeddings([c, i], 4))]


FC_FEATURES = {"age": [[1.0, 2.0], [3.0, 4.0]], "x": [[-1.0], [12.0]], "c": [["a", "z"], ["b", ""]],
               "h": [["q"], ["r"]], "h2": [["s"], ["t"]], "i": [[1], [4]], "wt": [[0.5], [2.0]]}


def fc_columns(tf):
    fc = tf.feature_column
    return [fc.numeric_column("age", shape=(2,)), fc.bucketized_column(fc.numeric_column("x"), [0.0, 10.0]),
            fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b"])),
            fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b"], num_oov_buckets=0)),
            fc.indicator_column(fc.categorical_column_with_hash_bucket("h", 7)),
            fc.indicator_column(fc.categorical_column_with_identity("i", 5)),
            fc.indicator_column(fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 5), "wt")),
            fc.indicator_column(fc.crossed_column(["h", "h2"], 13)),
            fc.numeric_column("age", shape=(2,), normalizer_fn=lambda v: v * 10.0)]


# --- tf.test --------------------------------------------------------------------------------------------------

def _test_fns(tf):
    t, n = tf.test.compute_gradient(lambda x: x * x, [tf.constant([1.0, 2.0])])
    t2, n2 = tf.test.compute_gradient(lambda x: tf.reduce_sum(x * x), [tf.constant([[1.0, 2.0]], tf.float64)])
    return [t[0], n[0], t2[0], n2[0], t2[0].dtype.name, tf.test.is_gpu_available(), tf.test.gpu_device_name(),
            tf.test.is_built_with_cuda(), tf.test.is_built_with_gpu_support(), tf.test.is_built_with_rocm(),
            tf.test.is_built_with_xla(), str(tf.test.benchmark_config()), tf.test.experimental.sync_devices()]


def _test_case(tf):
    class T(tf.test.TestCase):
        def runTest(self):
            pass

    c = T()
    c.setUp()
    out = [c.evaluate(tf.constant([1, 2])).tolist(), float(c.evaluate({"a": tf.constant(1.0)})["a"])]
    c.assertAllClose([1.0, 2.0], tf.constant([1.0, 2.0 + 1e-7]))
    c.assertAllClose({"a": [1.0], "b": (tf.constant(2.0),)}, {"a": [1.0], "b": (2.0,)})
    c.assertAllEqual(tf.constant([[1, 2]]), [[1, 2]])
    c.assertAllInRange(tf.constant([1, 2]), 1, 2)
    c.assertAllInSet(tf.constant([1, 2]), [1, 2, 3])
    c.assertAllGreater(tf.constant([2, 3]), 1)
    c.assertNotAllClose([1.0], [2.0])
    c.assertDTypeEqual(tf.constant([1.0]), tf.float32)
    c.assertShapeEqual(tf.constant([[1.0]]).numpy(), tf.constant([[2.0]]))
    c.assertAllCloseAccordingToType(tf.constant([1.0], tf.float16), [1.0005])
    for fn in (lambda: c.assertAllClose([1.0, 2.0], [1.0, 2.1]), lambda: c.assertAllEqual([1, 2], [1, 3]),
               lambda: c.assertAllClose([1.0], [1.0, 2.0]), lambda: c.assertAllInRange([1, 5], 1, 2),
               lambda: c.assertAllClose({"a": 1.0}, {"b": 1.0})):
        try:
            fn()
            out.append("passed")
        except AssertionError:
            out.append("AssertionError")
    with c.assertRaisesOpError("Incompatible shapes|required broadcastable shapes|Dimensions must be equal"):
        tf.constant([1, 2]) + tf.constant([1, 2, 3])
    out.append(float(tf.random.uniform([])) == float(tf.random.uniform([])))
    return out


# --- train / distribute / tpu / saved_model config objects ---------------------------------------------------

def _train(tf):
    s = tf.train.ServerDef(job_name="w", task_index=1, protocol="grpc")
    s.cluster.job.add(name="w").tasks[0] = "a:1"
    c = tf.train.ClusterDef()
    c.job.add(name="ps", tasks={0: "h:2"})
    ema = tf.train.ExponentialMovingAverage(0.9)
    v = tf.Variable([1.0, 2.0])
    ema.apply([v])
    v.assign([3.0, 6.0])
    ema.apply([v])
    ema2 = tf.train.ExponentialMovingAverage(0.99, num_updates=0)
    w = tf.Variable(1.0)
    ema2.apply([w])
    w.assign(11.0)
    ema2.apply([w])
    coord = tf.train.Coordinator()
    import threading

    def work():
        with coord.stop_on_exception():
            raise ValueError("boom")

    th = threading.Thread(target=work)
    th.start()
    return [list(s.SerializeToString()), list(c.SerializeToString()), ema.average(v), ema.average_name(v),
            ema2.average(w), coord.should_stop() or coord.wait_for_stop(5), _err(lambda: coord.join([th]))]


def _distribute(tf):
    P = tf.distribute.experimental.partitioners
    shape = tf.TensorShape([10, 3])
    return [repr(tf.distribute.InputOptions()), [m.name for m in tf.distribute.InputReplicationMode],
            repr(tf.distribute.RunOptions()), P.FixedShardsPartitioner(2)(shape, tf.float32),
            P.FixedShardsPartitioner(20)(shape, tf.float32),
            P.MinSizePartitioner(min_shard_bytes=64, max_shards=4)(shape, tf.float32),
            P.MinSizePartitioner()(shape, tf.float32),
            P.MaxSizePartitioner(max_shard_bytes=40)(shape, tf.float32),
            P.MaxSizePartitioner(max_shard_bytes=40, max_shards=2)(shape, tf.float32),
            P.MaxSizePartitioner(max_shard_bytes=100)(tf.TensorShape([10, 3]), tf.string),
            tf.distribute.experimental.CollectiveHints(bytes_per_pack=10).bytes_per_pack,
            _err(lambda: tf.distribute.cluster_resolver.SlurmClusterResolver()),
            repr(tf.distribute.cluster_resolver.UnionResolver(
                tf.distribute.cluster_resolver.SimpleClusterResolver(tf.train.ClusterSpec({"w": ["a:1"]})),
                tf.distribute.cluster_resolver.SimpleClusterResolver(tf.train.ClusterSpec({"w": ["b:1"],
                                                                                          "ps": ["c:2"]})))
                 .cluster_spec().as_dict())]


def _tpu(tf):
    E = tf.tpu.experimental.embedding
    table = E.TableConfig(10, 4)
    return [repr(tf.tpu.XLAOptions()), [m.name for m in tf.tpu.experimental.DeviceOrderMode],
            repr(tf.tpu.experimental.TPUSystemMetadata(1, 1, 1, [], None)), repr(table),
            repr(E.FeatureConfig(table)), E.SGD(0.1).learning_rate, E.Adam().beta_2,
            _err(lambda: E.TableConfig(0, 4)), _err(lambda: tf.tpu.experimental.DeviceAssignment(None, [[[0]]])),
            repr(tf.experimental.tensorrt.ConversionParams()),
            _err(lambda: tf.experimental.tensorrt.Converter("/tmp/none")),
            tf.xla.experimental.compile(lambda: tf.constant(1.0) + 1),
            _err(lambda: tf.xla.experimental.jit_scope().__enter__()),
            E.RowIdInitializer(offset=2)([3, 2], tf.float32)]


def _tpu_serving(tf):
    E = tf.tpu.experimental.embedding
    table = E.TableConfig(5, 2, initializer=E.RowIdInitializer(), combiner="sum")
    mean_table = E.TableConfig(5, 2, initializer=E.RowIdInitializer(offset=1), combiner="mean")
    cfg = {"a": E.FeatureConfig(table), "b": E.FeatureConfig(mean_table)}
    emb = E.TPUEmbeddingForServing(cfg, E.SGD(0.1))
    sp = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 3, 4], tf.int64), [2, 2])
    out = emb({"a": sp, "b": sp})
    return [out["a"], out["b"]]


def _saved_model(tf):
    f = tf.saved_model.experimental.Fingerprint(1, 2, 3, 4, 5)
    return [repr(f), f.singleprint(), [p.name for p in tf.saved_model.experimental.VariablePolicy],
            _err(lambda: tf.saved_model.experimental.read_fingerprint("/nonexistent_dir")).split("\n")[0]]


def _data_experimental(tf):
    import os
    import sqlite3
    import tempfile

    E = tf.data.experimental
    ds = tf.data.Dataset.range(10)
    tmp = tempfile.mkdtemp()
    db = os.path.join(tmp, "t.db")
    con = sqlite3.connect(db)
    con.execute("create table p(name text, age int, h real)")
    con.executemany("insert into p values (?,?,?)", [("ann", 30, 1.5), ("bob", 40, 1.8)])
    con.commit()
    con.close()
    r = E.Reducer(lambda k: tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: s)
    sq = E.SqlDataset("sqlite", db, "SELECT name, age, h FROM p", (tf.string, tf.int32, tf.float64))
    pad = tf.data.Dataset.from_tensor_slices({"a": [1, 2]}).apply(E.pad_to_cardinality(4))
    t = E.index_table_from_dataset(tf.data.Dataset.from_tensor_slices(["x", "y"]))
    t2 = E.table_from_dataset(tf.data.Dataset.from_tensor_slices((["x", "y"], [7, 8])).map(
        lambda a, b: (a, tf.cast(b, tf.int64))), default_value=-5)
    feat = tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))
    ex = tf.train.Example(features=tf.train.Features(feature={"f": feat})).SerializeToString()
    spec = {"f": tf.io.FixedLenFeature([], tf.int64)}
    pe = tf.data.Dataset.from_tensors([ex, ex]).apply(E.parse_example_dataset(spec))
    path = os.path.join(tmp, "x.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for _ in range(3):
            w.write(ex)
    mb = E.make_batched_features_dataset(path, 2, spec, num_epochs=1, shuffle=False)
    return [int(E.at(ds, 3)), _err(lambda: E.at(ds, 20)).split(":")[0],
            [int(x) for x in ds.apply(E.group_by_reducer(lambda x: x % 2, r))], repr(sq.element_spec),
            [[c.decode() if isinstance(c, bytes) else float(c) for c in row] for row in sq.as_numpy_iterator()],
            [{k: bool(v) if k == "valid" else int(v) for k, v in e.items()} for e in pad.as_numpy_iterator()],
            t.lookup(tf.constant(["y", "x", "z"])).numpy().tolist(),
            t2.lookup(tf.constant(["y", "z"])).numpy().tolist(),
            [e["f"].tolist() for e in pe.as_numpy_iterator()], [e["f"].tolist() for e in mb.as_numpy_iterator()]]


def _lite(tf):
    opts = tf.lite.experimental.QuantizationDebugOptions(layer_debug_metrics={"m": lambda d: 0})
    return [_err(lambda: tf.lite.experimental.load_delegate("libnot_a_delegate.so")).split(":")[0],
            sorted(opts.layer_debug_metrics), opts.fully_quantize]


def _views(tf):
    import tempfile

    m = tf.Module()
    m.v = tf.Variable(1.0)
    m.sub = tf.Module()
    m.sub.w = tf.Variable(2.0)
    tv = tf.train.TrackableView(m)
    ck = tf.train.Checkpoint(model=m)
    cv = tf.train.CheckpointView(ck.save(tempfile.mkdtemp() + "/c"))
    return [sorted(tv.children(m)), len(tv.descendants()), cv.children(0), cv.descendants(), sorted(cv.match(ck)),
            cv.children(1)]


def _python_state(tf):
    import tempfile

    class NP(tf.train.experimental.PythonState):
        def __init__(self):
            self.arr = [1, 2]

        def serialize(self):
            return ",".join(map(str, self.arr))

        def deserialize(self, s):
            self.arr = [int(x) for x in s.decode().split(",")]

    s = NP()
    ck = tf.train.Checkpoint(s=s)
    p = ck.save(tempfile.mkdtemp() + "/c")
    s.arr = [9]
    ck.restore(p)
    return [s.arr, sorted(k for k, _ in tf.train.list_variables(p))]


def _mlir(tf):
    import os
    import tempfile

    f = tf.function(lambda x: x * 2.0 + 1.0).get_concrete_function(tf.TensorSpec([2], tf.float32))
    text = tf.mlir.experimental.convert_function(f)
    p = os.path.join(tempfile.mkdtemp(), "m.mlirbc")
    tf.mlir.experimental.write_bytecode(p, "module {}")
    with open(p, "rb") as fh:
        magic = list(fh.read()[:4])
    return ["func.func" in text and "module" in text, tf.mlir.experimental.run_pass_pipeline("module {}", ""),
            magic, _err(lambda: tf.mlir.experimental.run_pass_pipeline("module {", "")).split(":")[0]]


CASES = {
    "mlir": _mlir,
    "python_state": _python_state,
    "train_views": _views,
    "data_experimental": _data_experimental,
    "lite_experimental": _lite,
    "et_basics": _et_basics,
    "et_errors": _et_errors,
    "et_nest": _et_nest,
    "et_function": _et_function,
    "et_equality": _et_equality,
    "et_spec": _et_spec,
    "et_custom_init": _et_custom_init,
    "dispatch": _dispatch,
    "config": _config,
    "queue_fifo": _queue_fifo,
    "queue_kinds": _queue_kinds,
    "queue_function": _queue_function,
    "fc_reprs": _fc_reprs,
    "test_functions": _test_fns,
    "test_case": _test_case,
    "train": _train,
    "distribute": _distribute,
    "tpu": _tpu,
    "tpu_serving": _tpu_serving,
    "saved_model": _saved_model,
}
