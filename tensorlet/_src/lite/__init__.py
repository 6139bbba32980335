"""TensorFlow Lite: the converter (graph IR -> TFLite builtin ops, quantization, TFL3 flatbuffers) and the
Interpreter (LiteRT when installed, else NumPy reference kernels)."""
