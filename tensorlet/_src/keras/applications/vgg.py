"""VGG16 and VGG19, as Keras 3 builds them."""

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.ops.registry import tf_export


def build_vgg(convs_per_block, wname, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation, name):
    files = iu.tf_kernels_files(wname)
    _, img_input = iu.prepare_input(input_shape, input_tensor, weights, include_top, classes, files, 224)
    x = img_input
    for b, (filters, n) in enumerate(zip((64, 128, 256, 512, 512), convs_per_block), start=1):
        for c in range(1, n + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same", name=f"block{b}_conv{c}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{b}_pool")(x)

    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top,
                     top=lambda x: iu.flatten_top(x, classes, classifier_activation, weights), pooling=pooling,
                     pool_names=(None, None))


@tf_export("keras.applications.VGG16", "keras.applications.vgg16.VGG16")
def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
          classifier_activation="softmax", name="vgg16"):
    """VGG16 (Simonyan & Zisserman, 2014) as Keras builds it; ``weights`` is None or a local weights file."""
    return build_vgg((2, 2, 3, 3, 3), "vgg16", include_top, weights, input_tensor, input_shape, pooling, classes,
                     classifier_activation, name)


@tf_export("keras.applications.VGG19", "keras.applications.vgg19.VGG19")
def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
          classifier_activation="softmax", name="vgg19"):
    """VGG19 as Keras builds it."""
    return build_vgg((2, 2, 4, 4, 4), "vgg19", include_top, weights, input_tensor, input_shape, pooling, classes,
                     classifier_activation, name)


@tf_export("keras.applications.vgg16.preprocess_input", "keras.applications.vgg19.preprocess_input")
def preprocess_input(x, data_format=None):
    """Caffe-style preprocessing (BGR, ImageNet means subtracted, no scaling)."""
    return iu.preprocess_input(x, data_format=data_format, mode="caffe")


@tf_export("keras.applications.vgg16.decode_predictions", "keras.applications.vgg19.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
