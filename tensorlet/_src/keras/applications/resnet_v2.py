"""ResNet50V2 / 101V2 / 152V2 (pre-activation ResNets), as Keras 3 builds them."""

from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.keras.applications.resnet import build_resnet
from tensorlet._src.ops.registry import tf_export


def _v2(depths, wname, include_top, weights, input_tensor, input_shape, pooling, classes, act, name):
    return build_resnet(depths, True, True, wname, include_top, weights, input_tensor, input_shape, pooling,
                        classes, act, name)


@tf_export("keras.applications.ResNet50V2", "keras.applications.resnet_v2.ResNet50V2")
def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
               classes=1000, classifier_activation="softmax", name="resnet50v2"):
    """ResNet50V2 as Keras builds it."""
    return _v2((3, 4, 6, 3), "resnet50v2", include_top, weights, input_tensor, input_shape, pooling, classes,
               classifier_activation, name)


@tf_export("keras.applications.ResNet101V2", "keras.applications.resnet_v2.ResNet101V2")
def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="resnet101v2"):
    """ResNet101V2 as Keras builds it."""
    return _v2((3, 4, 23, 3), "resnet101v2", include_top, weights, input_tensor, input_shape, pooling, classes,
               classifier_activation, name)


@tf_export("keras.applications.ResNet152V2", "keras.applications.resnet_v2.ResNet152V2")
def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="resnet152v2"):
    """ResNet152V2 as Keras builds it."""
    return _v2((3, 8, 36, 3), "resnet152v2", include_top, weights, input_tensor, input_shape, pooling, classes,
               classifier_activation, name)


@tf_export("keras.applications.resnet_v2.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return iu.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.resnet_v2.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
