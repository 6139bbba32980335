"""``run_layer_test``: the checks every Keras layer test makes (issue 12 item 5), in one place.

Given a layer class, its constructor arguments and an input, it checks

* the output shape (against ``expected_output_shape`` and against ``compute_output_shape``);
* the weights: their count (trainable / non-trainable), names and shapes;
* the config round trip: ``from_config(get_config())`` gives the same config (up to the new automatic name) and,
  with the same weights, the same outputs;
* eager == ``tf.function`` (and, when given, the expected output values);
* a training step: the gradient of the output's sum reaches every trainable weight and one SGD step changes them.

Layer tests call it for each configuration they cover and keep only what is specific to the layer (goldens from
Keras, masking, statistics).
"""

import numpy as np

import tensorlet as tf


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _numpy(x):
    return [np.asarray(t) for t in tf.nest.flatten(x)]


def run_layer_test(layer_cls, init_kwargs=None, input_data=None, input_shape=None, input_dtype="float32",
                   expected_output_shape=None, expected_output=None, expected_num_trainable_weights=None,
                   expected_num_non_trainable_weights=None, expected_weight_names=None, expected_weight_shapes=None,
                   call_kwargs=None, run_training_check=True, run_function_check=True, rtol=1e-5, atol=1e-6,
                   seed=0):
    """Runs the standard layer checks; returns the layer (built) and its eager output for further checks."""
    init_kwargs = dict(init_kwargs or {})
    call_kwargs = dict(call_kwargs or {})
    if input_data is None:
        rng = np.random.RandomState(seed)
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        data = [rng.uniform(-1, 1, size=s).astype(input_dtype) if np.dtype(input_dtype).kind == "f" else
                rng.randint(0, 4, size=s).astype(input_dtype) for s in shapes]
        input_data = data if isinstance(input_shape, list) else data[0]
    layer = layer_cls(**init_kwargs)
    out = layer(input_data, **call_kwargs)

    # output shape
    out_shapes = [tuple(t.shape) for t in tf.nest.flatten(out)]
    if expected_output_shape is not None:
        assert out_shapes == [tuple(s) for s in _as_list(expected_output_shape)] if isinstance(
            expected_output_shape, list) else out_shapes == [tuple(expected_output_shape)], \
            f"{layer_cls.__name__}: output shape {out_shapes} != {expected_output_shape}"
    in_shapes = [tuple(np.shape(x)) for x in tf.nest.flatten(input_data)]
    try:
        computed = layer.compute_output_shape(in_shapes if isinstance(input_data, list) else in_shapes[0])
    except NotImplementedError:
        computed = None
    if computed is not None:
        computed = tf.nest.flatten(computed) if isinstance(computed, list) and computed and \
            isinstance(computed[0], (tuple, list)) else [computed]
        computed = [tuple(s) for s in computed]
        assert computed == out_shapes, f"{layer_cls.__name__}: compute_output_shape {computed} != {out_shapes}"
    if expected_output is not None:
        for got, want in zip(_numpy(out), _as_list(expected_output)):
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)

    # weights
    if expected_num_trainable_weights is not None:
        assert len(layer.trainable_weights) == expected_num_trainable_weights, \
            [w.name for w in layer.trainable_weights]
    if expected_num_non_trainable_weights is not None:
        assert len(layer.non_trainable_weights) == expected_num_non_trainable_weights, \
            [w.name for w in layer.non_trainable_weights]
    if expected_weight_names is not None:
        assert [w.name for w in layer.weights] == list(expected_weight_names)
    if expected_weight_shapes is not None:
        assert [tuple(w.shape) for w in layer.weights] == [tuple(s) for s in expected_weight_shapes]
    assert len(layer.weights) == len(layer.trainable_weights) + len(layer.non_trainable_weights)

    # config round trip: same config (but the name), and the same outputs with the same weights
    config = layer.get_config()
    clone = layer_cls.from_config(config)
    assert clone.get_config() == {**config, "name": clone.name}, layer_cls.__name__
    clone_out = clone(input_data, **call_kwargs)
    clone.set_weights(layer.get_weights())
    clone_out = clone(input_data, **call_kwargs)
    for got, want in zip(_numpy(clone_out), _numpy(out)):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)

    # eager == tf.function
    if run_function_check:
        compiled = tf.function(lambda x: layer(x, **call_kwargs))
        for got, want in zip(_numpy(compiled(input_data)), _numpy(out)):
            np.testing.assert_allclose(got, want, rtol=rtol, atol=max(atol, 1e-5))

    # a training step reaches every trainable weight
    if run_training_check and layer.trainable_weights:
        weights = layer.trainable_weights
        before = [np.array(w.numpy()) for w in weights]
        with tf.GradientTape() as tape:
            y = layer(input_data, **{**call_kwargs, **({"training": True} if _takes_training(layer) else {})})
            # a fixed random projection of the outputs: no weight gets an accidentally zero gradient (PReLU's alpha
            # starts at 0, BatchNormalization's gamma has zero gradient under a plain sum)
            rng = np.random.RandomState(seed + 1)
            loss = tf.add_n([tf.reduce_sum(tf.cast(t, "float32") * rng.uniform(0.5, 1.5, tuple(t.shape)).astype(
                "float32")) for t in tf.nest.flatten(y)])
        grads = tape.gradient(loss, weights)
        missing = [w.name for w, g in zip(weights, grads) if g is None]
        assert not missing, f"{layer_cls.__name__}: no gradient for {missing}"
        tf.keras.optimizers.SGD(0.01).apply_gradients(zip(grads, weights))
        changed = [not np.array_equal(b, np.asarray(w.numpy())) for b, w in zip(before, weights)]
        assert any(changed), f"{layer_cls.__name__}: a training step changed no weight"
    return layer, out


def _takes_training(layer):
    import inspect

    return "training" in inspect.signature(layer.call).parameters
