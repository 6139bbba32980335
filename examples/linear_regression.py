"""The TF eager guide's linear regression (seed 000): learn ``y = 3x + 2`` from noisy points.

A ``tf.keras.Model`` with two variables, a ``GradientTape`` for the gradients and SGD for the updates.

    tensorlet run examples/linear_regression.py
"""

import tensorflow as tf


class Model(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.W = tf.Variable(5.0, name="weight")
        self.B = tf.Variable(10.0, name="bias")

    def call(self, inputs):
        return inputs * self.W + self.B


NUM_EXAMPLES = 2000
tf.random.set_seed(0)
training_inputs = tf.random.normal([NUM_EXAMPLES])
noise = tf.random.normal([NUM_EXAMPLES])
training_outputs = training_inputs * 3 + 2 + noise


def loss(model, inputs, targets):
    error = model(inputs) - targets
    return tf.reduce_mean(tf.square(error))


def grad(model, inputs, targets):
    with tf.GradientTape() as tape:
        loss_value = loss(model, inputs, targets)
    return tape.gradient(loss_value, [model.W, model.B])


model = Model()
optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
print(f"Initial loss: {loss(model, training_inputs, training_outputs):.3f}")
for i in range(300):
    grads = grad(model, training_inputs, training_outputs)
    optimizer.apply_gradients(zip(grads, [model.W, model.B]))
    if i % 50 == 0:
        print(f"Loss at step {i:03d}: {loss(model, training_inputs, training_outputs):.3f}")
print(f"Final loss: {loss(model, training_inputs, training_outputs):.3f}")
print(f"W = {model.W.numpy():.3f}, B = {model.B.numpy():.3f}")
