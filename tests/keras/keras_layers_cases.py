"""The layer table shared by tests/keras/test_*_layers.py and the recorder tools/record_tf_goldens/keras_layers.py
(which runs it with real Keras 3 into tests/goldens/keras_layers.json).

Each case builds one layer from ``(class name, kwargs)``, calls it once (training=False) to build it, replaces its
weights with deterministic values (``wdet``), then calls it under a GradientTape with the case's call kwargs and
records: outputs, d loss / d (float inputs, trainable weights) for ``loss = sum_j sum(y_j * u_j)``, the weights after
the call (BatchNormalization's moving statistics), ``compute_output_shape`` and ``get_config``.
``run(tf, keras, spec)`` is framework-agnostic: ``tf``/``keras`` are TensorFlow and Keras, or tensorlet and
``tensorlet.keras``.
"""

import json

import numpy as np

F32, I32 = "float32", "int32"


def det(shape, k=1.3, s=2.0, dtype=np.float32):
    """Deterministic values ``s * sin(k * i + 0.4)`` over the flattened shape."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * k + 0.4) * s).reshape(shape).astype(dtype)


def wdet(shape, i, positive=False):
    """The i-th weight's deterministic value (positive ones for variances)."""
    v = det(shape, k=0.37 + 0.11 * i, s=0.6)
    return np.abs(v) + 0.5 if positive else v


def ints(shape, hi, k=1.7):
    n = int(np.prod(shape))
    return ((np.arange(n) * 7 + int(k * 10)) % hi).reshape(shape).astype(np.int32)


def C(cls, kwargs=None, inputs=((2, 5, 3),), call="single", call_kwargs=None, positive=(), dtypes=None,
      set_weights=True, values=None):
    """A case: layer class name and kwargs; input shapes; call style ("single", "list" or "mha")."""
    return dict(cls=cls, kwargs=kwargs or {}, inputs=[tuple(s) for s in inputs], call=call,
                call_kwargs=call_kwargs or {}, positive=tuple(positive), dtypes=dtypes, set_weights=set_weights,
                values=values)


_M = np.array([[True, True, False, True, False], [True, False, True, True, True]])
_QM = np.array([[True, False, True], [True, True, False]])
_AM = (ints((2, 4, 6), 3) > 0)

CONV = {
    "conv1d_valid": C("Conv1D", dict(filters=3, kernel_size=3), [(2, 7, 2)]),
    "conv1d_causal_dil": C("Conv1D", dict(filters=2, kernel_size=3, padding="causal", dilation_rate=2), [(2, 8, 3)]),
    "conv1d_same_s2_groups": C("Conv1D", dict(filters=4, kernel_size=3, strides=2, padding="same", groups=2),
                               [(2, 9, 4)]),
    "conv1d_cf": C("Conv1D", dict(filters=3, kernel_size=2, data_format="channels_first"), [(2, 3, 6)]),
    "conv2d_same_s2_relu": C("Conv2D", dict(filters=3, kernel_size=3, strides=2, padding="same", activation="relu"),
                             [(2, 5, 5, 2)]),
    "conv2d_valid_dil": C("Conv2D", dict(filters=2, kernel_size=(2, 3), dilation_rate=(2, 1)), [(1, 6, 6, 3)]),
    "conv2d_groups": C("Conv2D", dict(filters=4, kernel_size=2, groups=2), [(1, 4, 4, 4)]),
    "conv2d_cf": C("Conv2D", dict(filters=2, kernel_size=3, padding="same", data_format="channels_first"),
                   [(1, 3, 4, 5)]),
    "conv2d_nobias_tanh": C("Conv2D", dict(filters=2, kernel_size=1, use_bias=False, activation="tanh"),
                            [(1, 3, 3, 2)]),
    "conv3d_same": C("Conv3D", dict(filters=2, kernel_size=2, padding="same", strides=(1, 2, 1)), [(1, 3, 4, 3, 2)]),
    # no bias: Keras 3.15 on TF CPU adds a channels_first Conv3D's bias along the last axis (a Keras bug)
    "conv3d_cf": C("Conv3D", dict(filters=2, kernel_size=2, data_format="channels_first", use_bias=False),
                   [(1, 2, 3, 3, 3)]),
    "conv1d_transpose": C("Conv1DTranspose", dict(filters=2, kernel_size=3, strides=2), [(2, 4, 3)]),
    "conv1d_transpose_same_op": C("Conv1DTranspose", dict(filters=2, kernel_size=3, strides=2, padding="same",
                                                          output_padding=1), [(1, 4, 2)]),
    "conv2d_transpose_valid": C("Conv2DTranspose", dict(filters=3, kernel_size=3, strides=2), [(1, 3, 3, 2)]),
    "conv2d_transpose_same": C("Conv2DTranspose", dict(filters=2, kernel_size=(3, 2), strides=(2, 1), padding="same"),
                               [(2, 3, 3, 2)]),
    "conv2d_transpose_outpad": C("Conv2DTranspose", dict(filters=2, kernel_size=3, strides=2, output_padding=1),
                                 [(1, 2, 3, 2)]),
    "conv2d_transpose_dil": C("Conv2DTranspose", dict(filters=2, kernel_size=3, dilation_rate=2, padding="same"),
                              [(1, 4, 4, 2)]),
    "conv2d_transpose_cf": C("Conv2DTranspose", dict(filters=2, kernel_size=2, strides=2,
                                                     data_format="channels_first"), [(1, 3, 2, 3)]),
    "conv3d_transpose": C("Conv3DTranspose", dict(filters=2, kernel_size=2, strides=2, padding="same"),
                          [(1, 2, 2, 3, 2)]),
    "depthwise2d_same": C("DepthwiseConv2D", dict(kernel_size=3, depth_multiplier=2, padding="same"),
                          [(1, 5, 5, 2)]),
    "depthwise2d_s2": C("DepthwiseConv2D", dict(kernel_size=(2, 3), strides=2), [(2, 5, 6, 3)]),
    "depthwise2d_cf": C("DepthwiseConv2D", dict(kernel_size=2, data_format="channels_first"), [(1, 2, 4, 4)]),
    "depthwise1d_dil": C("DepthwiseConv1D", dict(kernel_size=3, depth_multiplier=2, padding="same",
                                                 dilation_rate=2), [(2, 7, 2)]),
    "separable2d_same": C("SeparableConv2D", dict(filters=3, kernel_size=3, depth_multiplier=2, padding="same"),
                          [(1, 5, 5, 2)]),
    "separable2d_s2": C("SeparableConv2D", dict(filters=2, kernel_size=2, strides=2, activation="relu"),
                        [(2, 5, 5, 3)]),
    "separable1d": C("SeparableConv1D", dict(filters=3, kernel_size=3, padding="same"), [(2, 6, 2)]),
}

POOL = {
    "maxpool1d": C("MaxPooling1D", dict(pool_size=2), [(2, 7, 3)]),
    "maxpool1d_same_s1": C("MaxPooling1D", dict(pool_size=3, strides=1, padding="same"), [(2, 5, 2)]),
    "maxpool2d": C("MaxPooling2D", {}, [(2, 5, 5, 2)]),
    "maxpool2d_same_s2": C("MaxPooling2D", dict(pool_size=3, strides=2, padding="same"), [(1, 5, 6, 2)]),
    "maxpool2d_cf": C("MaxPooling2D", dict(pool_size=2, data_format="channels_first"), [(1, 2, 4, 5)]),
    "maxpool3d": C("MaxPooling3D", dict(pool_size=2, padding="same"), [(1, 3, 4, 4, 2)]),
    "avgpool1d_same": C("AveragePooling1D", dict(pool_size=3, strides=2, padding="same"), [(2, 6, 2)]),
    "avgpool2d_same": C("AveragePooling2D", dict(pool_size=3, strides=2, padding="same"), [(1, 5, 5, 2)]),
    "avgpool2d_cf": C("AveragePooling2D", dict(pool_size=(2, 1), data_format="channels_first"), [(1, 2, 4, 3)]),
    "avgpool3d": C("AveragePooling3D", dict(pool_size=2), [(1, 4, 4, 4, 2)]),
    "gap1d": C("GlobalAveragePooling1D", {}, [(2, 5, 3)]),
    "gap1d_mask": C("GlobalAveragePooling1D", {}, [(2, 5, 3)], call_kwargs=dict(mask=_M)),
    "gap1d_cf_keep": C("GlobalAveragePooling1D", dict(data_format="channels_first", keepdims=True), [(2, 3, 5)]),
    "gmp1d": C("GlobalMaxPooling1D", {}, [(2, 5, 3)]),
    "gap2d_keep": C("GlobalAveragePooling2D", dict(keepdims=True), [(2, 3, 4, 2)]),
    "gmp2d_cf": C("GlobalMaxPooling2D", dict(data_format="channels_first"), [(2, 2, 3, 4)]),
    "gap3d": C("GlobalAveragePooling3D", {}, [(1, 2, 3, 2, 2)]),
    "gmp3d_keep": C("GlobalMaxPooling3D", dict(keepdims=True), [(1, 2, 3, 2, 2)]),
}

NORM = {
    "bn_infer": C("BatchNormalization", {}, [(4, 3)], positive=(3,)),
    "bn_train": C("BatchNormalization", dict(momentum=0.9), [(4, 3)], call_kwargs=dict(training=True),
                  positive=(3,)),
    "bn_axis1_train": C("BatchNormalization", dict(axis=1, epsilon=0.01), [(2, 3, 4, 2)],
                        call_kwargs=dict(training=True), positive=(3,)),
    "bn_plain_train": C("BatchNormalization", dict(center=False, scale=False), [(2, 3, 3)],
                        call_kwargs=dict(training=True), positive=(1,)),
    "bn_infer_4d": C("BatchNormalization", {}, [(2, 3, 3, 2)], positive=(3,)),
    "ln": C("LayerNormalization", {}, [(2, 3, 4)]),
    "ln_axes": C("LayerNormalization", dict(axis=[1, 2], epsilon=1e-5), [(2, 3, 4)]),
    "ln_rms": C("LayerNormalization", dict(rms_scaling=True), [(2, 3, 4)]),
    "ln_nocenter": C("LayerNormalization", dict(center=False, axis=1), [(2, 3, 4)]),
    "gn": C("GroupNormalization", dict(groups=2), [(2, 3, 4)]),
    "gn_4d": C("GroupNormalization", dict(groups=3, epsilon=1e-4), [(2, 2, 2, 6)]),
    "gn_axis1": C("GroupNormalization", dict(groups=2, axis=1), [(2, 4, 3)]),
    "unitnorm": C("UnitNormalization", {}, [(2, 3, 4)]),
    "unitnorm_axes": C("UnitNormalization", dict(axis=[1, 2]), [(2, 3, 4)]),
}

RESHAPE = {
    "zp1d": C("ZeroPadding1D", dict(padding=(1, 2)), [(2, 3, 2)]),
    "zp2d": C("ZeroPadding2D", dict(padding=((1, 0), (2, 1))), [(1, 3, 3, 2)]),
    "zp2d_cf": C("ZeroPadding2D", dict(padding=1, data_format="channels_first"), [(1, 2, 2, 3)]),
    "zp3d": C("ZeroPadding3D", dict(padding=(1, 0, 1)), [(1, 2, 2, 2, 1)]),
    "crop1d": C("Cropping1D", dict(cropping=(1, 2)), [(2, 6, 2)]),
    "crop2d": C("Cropping2D", dict(cropping=((1, 0), (0, 2))), [(1, 4, 5, 2)]),
    "crop2d_cf": C("Cropping2D", dict(cropping=1, data_format="channels_first"), [(1, 2, 4, 4)]),
    "crop3d": C("Cropping3D", dict(cropping=((1, 0), (0, 1), (1, 1))), [(1, 3, 3, 4, 1)]),
    "up1d": C("UpSampling1D", dict(size=3), [(2, 3, 2)]),
    "up2d": C("UpSampling2D", dict(size=(2, 3)), [(1, 2, 3, 2)]),
    "up2d_bilinear": C("UpSampling2D", dict(size=2, interpolation="bilinear"), [(1, 3, 3, 2)]),
    "up2d_cf": C("UpSampling2D", dict(size=2, data_format="channels_first"), [(1, 2, 2, 3)]),
    "up3d": C("UpSampling3D", dict(size=(1, 2, 2)), [(1, 2, 2, 2, 1)]),
}

MERGE = {
    "add3": C("Add", {}, [(2, 3), (2, 3), (2, 3)], call="list"),
    "add_bcast": C("Add", {}, [(2, 3, 4), (2, 1, 4)], call="list"),
    "subtract": C("Subtract", {}, [(2, 3, 2), (2, 3, 2)], call="list"),
    "multiply": C("Multiply", {}, [(2, 4), (2, 4)], call="list"),
    "average": C("Average", {}, [(2, 4), (2, 4), (2, 4)], call="list"),
    "maximum": C("Maximum", {}, [(2, 4), (2, 4)], call="list"),
    "minimum": C("Minimum", {}, [(2, 4), (2, 4)], call="list"),
    "concat": C("Concatenate", {}, [(2, 3), (2, 2)], call="list"),
    "concat_axis1": C("Concatenate", dict(axis=1), [(2, 3, 2), (2, 1, 2)], call="list"),
    "dot": C("Dot", dict(axes=1), [(2, 4), (2, 4)], call="list"),
    "dot_3d": C("Dot", dict(axes=(2, 2)), [(2, 3, 4), (2, 5, 4)], call="list"),
    "dot_3d_12": C("Dot", dict(axes=(1, 2)), [(2, 3, 4), (2, 5, 3)], call="list"),
    "dot_normalize": C("Dot", dict(axes=-1, normalize=True), [(2, 3, 4), (2, 2, 4)], call="list"),
}

ATTN = {
    "attention": C("Attention", {}, [(2, 3, 4), (2, 5, 4)], call="list"),
    "attention_key_scale": C("Attention", dict(use_scale=True), [(2, 3, 4), (2, 5, 4), (2, 5, 4)], call="list"),
    "attention_concat": C("Attention", dict(score_mode="concat", use_scale=True), [(2, 3, 4), (2, 5, 4)],
                          call="list"),
    "attention_masks": C("Attention", {}, [(2, 3, 4), (2, 5, 4)], call="list",
                         call_kwargs=dict(mask=[_QM, _M], return_attention_scores=True)),
    "attention_causal": C("Attention", {}, [(2, 4, 3), (2, 4, 3)], call="list",
                          call_kwargs=dict(use_causal_mask=True, return_attention_scores=True)),
    "additive": C("AdditiveAttention", {}, [(2, 3, 4), (2, 5, 4)], call="list"),
    "additive_noscale_mask": C("AdditiveAttention", dict(use_scale=False), [(2, 3, 4), (2, 5, 4)], call="list",
                               call_kwargs=dict(mask=[None, _M])),
    "mha": C("MultiHeadAttention", dict(num_heads=2, key_dim=3), [(2, 4, 5), (2, 6, 7)], call="mha",
             call_kwargs=dict(return_attention_scores=True)),
    "mha_self_causal": C("MultiHeadAttention", dict(num_heads=2, key_dim=3, value_dim=2, output_shape=4),
                         [(2, 4, 5)], call="mha", call_kwargs=dict(use_causal_mask=True)),
    "mha_mask_key": C("MultiHeadAttention", dict(num_heads=3, key_dim=2, use_bias=False),
                      [(2, 4, 5), (2, 6, 3), (2, 6, 2)], call="mha", call_kwargs=dict(attention_mask=_AM)),
    "mha_axes": C("MultiHeadAttention", dict(num_heads=2, key_dim=2, attention_axes=(1, 2)),
                  [(1, 2, 3, 4), (1, 2, 3, 4)], call="mha", call_kwargs=dict(return_attention_scores=True)),
}

PREPROC = {
    "rescaling": C("Rescaling", dict(scale=1 / 255.0, offset=-1.0), [(2, 3, 2)]),
    "normalization_given": C("Normalization", dict(mean=[0.5, -1.0, 2.0], variance=[4.0, 0.25, 1.0]), [(2, 4, 3)],
                             set_weights=False),
    "normalization_invert": C("Normalization", dict(mean=2.0, variance=9.0, invert=True), [(2, 3)],
                              set_weights=False),
    "normalization_axis": C("Normalization", dict(axis=1, mean=[1.0, 2.0], variance=[1.0, 4.0]), [(3, 2, 2)],
                            set_weights=False),
    "category_multi_hot": C("CategoryEncoding", dict(num_tokens=5), [(3, 2)], dtypes=[I32],
                            values=[ints((3, 2), 5)]),
    "category_one_hot": C("CategoryEncoding", dict(num_tokens=4, output_mode="one_hot"), [(5,)], dtypes=[I32],
                          values=[ints((5,), 4)]),
    "category_count": C("CategoryEncoding", dict(num_tokens=6, output_mode="count"), [(2, 4)], dtypes=[I32],
                        values=[ints((2, 4), 3)]),
    "resizing_bilinear": C("Resizing", dict(height=5, width=3), [(2, 3, 4, 2)]),
    "resizing_nearest": C("Resizing", dict(height=2, width=6, interpolation="nearest"), [(1, 4, 3, 2)]),
    "resizing_crop": C("Resizing", dict(height=3, width=3, crop_to_aspect_ratio=True), [(1, 4, 6, 2)]),
    "center_crop": C("CenterCrop", dict(height=2, width=3), [(2, 4, 5, 2)]),
    "center_crop_3d": C("CenterCrop", dict(height=3, width=2), [(5, 4, 1)]),
    "category_multi_hot_1d": C("CategoryEncoding", dict(num_tokens=4), [(3,)], dtypes=[I32],
                               values=[np.array([0, 1, 3], np.int32)]),
    "random_rotation_fixed": C("RandomRotation", dict(factor=(0.1, 0.1)), [(2, 4, 5, 2)],
                               call_kwargs=dict(training=True)),
    "random_rotation_nearest_constant": C("RandomRotation", dict(factor=(-0.3, -0.3), fill_mode="constant",
                                                                 interpolation="nearest", fill_value=1.5),
                                          [(1, 5, 4, 1)], call_kwargs=dict(training=True)),
    "random_zoom_out": C("RandomZoom", dict(height_factor=(0.5, 0.5), fill_mode="constant"), [(1, 4, 4, 2)],
                         call_kwargs=dict(training=True)),
    "random_zoom_in_wrap": C("RandomZoom", dict(height_factor=(-0.4, -0.4), width_factor=(0.3, 0.3),
                                                fill_mode="wrap"), [(1, 5, 4, 1)], call_kwargs=dict(training=True)),
    "random_translation_nearest": C("RandomTranslation", dict(height_factor=(0.3, 0.3), width_factor=(-0.45, -0.45),
                                                              fill_mode="nearest"), [(2, 4, 4, 1)],
                                    call_kwargs=dict(training=True)),
    "random_translation_reflect_cf": C("RandomTranslation", dict(height_factor=(-0.6, -0.6),
                                                                 width_factor=(0.7, 0.7),
                                                                 data_format="channels_first"), [(1, 2, 4, 5)],
                                       call_kwargs=dict(training=True)),
    "random_flip_infer": C("RandomFlip", {}, [(1, 3, 3, 2)], call_kwargs=dict(training=False)),
    "random_rotation_infer": C("RandomRotation", dict(factor=0.2), [(1, 3, 3, 2)],
                               call_kwargs=dict(training=False)),
}

ACT = {
    "leaky_relu": C("LeakyReLU", {}, [(2, 5)]),
    "leaky_relu_slope": C("LeakyReLU", dict(negative_slope=0.05), [(2, 5)]),
    "relu_full": C("ReLU", dict(max_value=1.5, negative_slope=0.1, threshold=0.5), [(3, 5)]),
    "elu": C("ELU", dict(alpha=0.5), [(2, 5)]),
    "prelu": C("PReLU", {}, [(2, 3, 4)]),
    "prelu_shared": C("PReLU", dict(shared_axes=[1]), [(2, 3, 4)]),
    "softmax": C("Softmax", dict(axis=1), [(2, 3, 4)]),
    "softmax_mask": C("Softmax", {}, [(2, 5)], call_kwargs=dict(mask=_M)),
    "activity_reg": C("ActivityRegularization", dict(l1=0.01, l2=0.02), [(2, 3)]),
    "gaussian_noise_infer": C("GaussianNoise", dict(stddev=0.5), [(2, 3)]),
    "gaussian_dropout_infer": C("GaussianDropout", dict(rate=0.3), [(2, 3)]),
    "alpha_dropout_infer": C("AlphaDropout", dict(rate=0.3), [(2, 3)]),
}

GROUPS = {"conv": CONV, "pool": POOL, "norm": NORM, "reshape": RESHAPE, "merge": MERGE, "attention": ATTN,
          "preprocessing": PREPROC, "activation": ACT}
CASES = {name: spec for group in GROUPS.values() for name, spec in group.items()}


def _call(layer, xs, spec, kwargs):
    if spec["call"] == "list":
        return layer(list(xs), **kwargs)
    if spec["call"] == "mha":
        q, rest = xs[0], xs[1:]
        v = rest[0] if rest else q
        if len(rest) > 1:
            kwargs = dict(kwargs, key=rest[1])
        return layer(q, v, **kwargs)
    return layer(xs[0], **kwargs)


def _as_tf(tf, v):
    if isinstance(v, np.ndarray):
        return tf.constant(v)
    if isinstance(v, list):
        return [_as_tf(tf, e) for e in v]
    return v


def _shapes_for(spec):
    shapes = [tuple(s) for s in spec["inputs"]]
    if spec["call"] == "list":
        return [shapes]
    if spec["call"] == "mha":
        return [shapes[0], shapes[1] if len(shapes) > 1 else shapes[0]] + ([shapes[2]] if len(shapes) > 2 else [])
    return [shapes[0]]


def jsonable(obj):
    """get_config as plain JSON (tuples -> lists)."""
    return json.loads(json.dumps(obj, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def make_layer(keras, spec):
    return getattr(keras.layers, spec["cls"])(**spec["kwargs"])


def inputs_for(spec):
    out = []
    for i, shape in enumerate(spec["inputs"]):
        if spec["values"] is not None:
            out.append(np.asarray(spec["values"][i]))
        else:
            out.append(det(shape, k=1.3 + 0.2 * i))
    return out


def run(tf, keras, spec):
    """Returns dict(outputs, grads, weights, output_shape, config) as NumPy arrays / plain values."""
    layer = make_layer(keras, spec)
    xs = [tf.constant(a) for a in inputs_for(spec)]
    kwargs = {k: _as_tf(tf, v) for k, v in spec["call_kwargs"].items()}
    build_kwargs = {k: v for k, v in kwargs.items() if k not in ("training",)}
    _call(layer, xs, spec, build_kwargs)
    if spec["set_weights"]:
        ws = layer.get_weights()
        layer.set_weights([wdet(np.shape(w), i, i in spec["positive"]) for i, w in enumerate(ws)])
    fx = [x for x in xs if x.dtype == tf.float32]
    with tf.GradientTape() as tape:
        tape.watch(fx)
        y = _call(layer, xs, spec, kwargs)
        ys = list(y) if isinstance(y, (tuple, list)) else [y]
        loss = 0.0
        for j, o in enumerate(ys):
            if o.dtype == tf.float32:
                loss = loss + tf.reduce_sum(o * tf.constant(det(tuple(o.shape), k=0.7 + 0.1 * j)))
    tw = list(layer.trainable_weights)
    grads = tape.gradient(loss, fx + tw) if (fx or tw) and not isinstance(loss, float) else []
    try:
        shape = layer.compute_output_shape(*_shapes_for(spec))
        shape = jsonable(shape)
    except Exception as e:  # noqa: BLE001
        shape = f"error: {type(e).__name__}"
    return dict(outputs=[o.numpy() for o in ys], grads=[None if g is None else g.numpy() for g in grads],
                weights=[np.asarray(w) for w in layer.get_weights()], output_shape=shape,
                config=jsonable(layer.get_config()), losses=[float(v) for v in layer.losses])


def encode_array(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": a.dtype.name,
            "v": [float(f"{x:.8g}") for x in a.astype(np.float64).ravel()]}


def _config_equal(got, want, where):
    assert set(got) == set(want), f"{where}: config keys {sorted(set(got) ^ set(want))} differ"
    for k, w in want.items():
        g = got[k]
        if k == "name":
            continue  # layer naming is the base class's (checked in its own tests)
        if isinstance(w, dict) and "class_name" in w:
            assert isinstance(g, dict) and g.get("class_name") == w["class_name"], f"{where}: {k}={g!r}, want {w!r}"
        else:
            assert g == w, f"{where}: config[{k!r}] = {g!r}, Keras has {w!r}"


def compare(name, got, want, rtol=1e-5, atol=1e-5):
    """Check a ``run`` result against the recorded golden entry."""
    assert "error" not in want, want.get("error")

    def arrays(g, w, what):
        assert len(g) == len(w), f"{name}: {len(g)} {what}, Keras has {len(w)}"
        for i, (a, e) in enumerate(zip(g, w)):
            if e is None:
                assert a is None, f"{name}: {what}[{i}] should be None"
                continue
            assert a is not None, f"{name}: {what}[{i}] is None"
            a = np.asarray(a)
            assert list(a.shape) == e["shape"], f"{name}: {what}[{i}] shape {a.shape}, Keras {e['shape']}"
            assert a.dtype.name == e["dtype"], f"{name}: {what}[{i}] dtype {a.dtype}, Keras {e['dtype']}"
            np.testing.assert_allclose(a.astype(np.float64).ravel(), e["v"], rtol=rtol, atol=atol,
                                       err_msg=f"{name}: {what}[{i}]")

    arrays(got["outputs"], want["outputs"], "outputs")
    arrays(got["grads"], want["grads"], "grads")
    arrays(got["weights"], want["weights"], "weights")
    assert got["output_shape"] == want["output_shape"], \
        f"{name}: compute_output_shape {got['output_shape']}, Keras {want['output_shape']}"
    _config_equal(got["config"], want["config"], name)
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-5, atol=1e-6, err_msg=f"{name}: losses")


_GOLDENS = None


def goldens():
    """tests/goldens/keras_layers.json (loaded once)."""
    global _GOLDENS
    if _GOLDENS is None:
        import os

        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "goldens",
                            "keras_layers.json")
        with open(path) as f:
            _GOLDENS = json.load(f)
    return _GOLDENS


def check_case(tf, name):
    """Run case ``name`` with tensorlet and compare it with Keras's recorded results."""
    compare(name, run(tf, tf.keras, CASES[name]), goldens()[name])


def graph_ready(tf):
    """True when ``tf.function`` exists and traces a trivial function (the graph path is being built)."""
    fn = getattr(tf, "function", None)
    if fn is None:
        return False
    try:
        return float(fn(lambda x: x * 0.5 + 1.0)(tf.constant(2.0)).numpy()) == 2.0
    except Exception:  # noqa: BLE001
        return False
