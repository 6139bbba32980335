"""DTensor on a 2-device CPU mesh, run by real TF (tools/record_tf_goldens/dtensor.py -> tests/goldens/dtensor.json,
in a process that first splits the CPU into 2 logical devices) and by tensorlet (tests/platform/test_dtensor.py)."""


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return "no error"


def _np(ts):
    return [t.numpy().tolist() for t in ts]


def _mesh(tf):
    return tf.experimental.dtensor.create_mesh([("x", 2)], devices=["/device:CPU:0", "/device:CPU:1"])


def _mesh_layout(tf):
    d = tf.experimental.dtensor
    m = _mesh(tf)
    lay = d.Layout.batch_sharded(m, "x", rank=2)
    m2 = d.create_mesh([("a", 1), ("b", 2)], devices=["/device:CPU:0", "/device:CPU:1"])
    return [repr(m), m.to_string(), m.dim_names, m.shape(), m.size, m.device_type(), m.num_local_devices(),
            repr(lay), lay.sharding_specs, lay.rank, lay.num_shards(0), lay.is_fully_replicated(),
            repr(d.Layout.replicated(m, rank=1)), repr(d.Layout.inner_sharded(m2, "b", 2)), m2.dim_size("b"),
            d.Layout.from_string(lay.to_string()) == lay, d.Mesh.from_string(m.to_string()) == m,
            d.UNSHARDED, d.MATCH, _err(lambda: d.Mesh(["x"], [0, 1], [0, 1], ["CPU:0", "CPU:1"]))]


def _pack_unpack(tf):
    d = tf.experimental.dtensor
    m = _mesh(tf)
    lay = d.Layout.batch_sharded(m, "x", rank=2)
    rep = d.Layout.replicated(m, rank=1)
    t = d.pack([tf.constant([[1.0, 2.0]]), tf.constant([[3.0, 4.0]])], lay)
    u = d.relayout(t, d.Layout.replicated(m, 2))
    c = d.copy_to_mesh(tf.constant([1.0, 2.0]), rep)
    s = t + 1
    return [d.is_dtensor(t), repr(d.fetch_layout(t)), _np(d.unpack(t)), _np(d.unpack(u)), repr(d.fetch_layout(u)),
            d.is_dtensor(tf.constant(1.0)), _err(lambda: d.fetch_layout(tf.constant(1.0))),
            d.fetch_layout(c) == rep, _np(d.unpack(c)), d.is_dtensor(s), _np(d.unpack(s)), d.is_dtensor(tf.math.exp(t)),
            _err(lambda: d.pack([tf.constant([1.0])], rep)), _err(lambda: d.check_layout(t, rep)).split(":")[0],
            _np(d.unpack(d.call_with_layout(tf.ones, d.Layout.batch_sharded(m, "x", 1), shape=[4])))]


def _variables_and_client(tf):
    d = tf.experimental.dtensor
    m = _mesh(tf)
    rep = d.Layout.replicated(m, rank=1)
    v = d.DVariable(d.copy_to_mesh(tf.zeros([2]), rep))
    with d.default_mesh(m):
        inside = d.get_default_mesh() == m
    return [repr(d.fetch_layout(v)), d.get_default_mesh() is None, inside, d.client_id(), d.num_clients(), d.job_name(),
            d.jobs(), d.full_job_name(), d.heartbeat_enabled(), d.preferred_device_type(), d.device_name(),
            _err(lambda: d.create_tpu_mesh(["x"], [1], "m"))]


CASES = {"mesh_layout": _mesh_layout, "pack_unpack": _pack_unpack, "variables_and_client": _variables_and_client}
