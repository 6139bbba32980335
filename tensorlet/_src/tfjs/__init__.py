"""TensorFlow.js export: Keras models in the Layers format (model.json + weight shards)."""
