"""``tensorflow.python.util`` under the alias (see ``tf_python/__init__``)."""
