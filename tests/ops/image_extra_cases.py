"""tf.image additions (NMS family, crop_and_resize, draw_bounding_boxes, SSIM) run by real TF
(tools/record_tf_goldens/op_extras.py -> tests/goldens/image_extra.json) and by tensorlet
(tests/ops/test_image_extra.py)."""

BOXES = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, -0.1, 1.0, 0.9], [0.0, 10.0, 1.0, 11.0],
         [0.0, 10.1, 1.0, 11.1], [0.0, 100.0, 1.0, 101.0]]
SCORES = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3]


def _img(tf, c=1):
    return tf.reshape(tf.range(2 * 5 * 6 * c, dtype=tf.float32), [2, 5, 6, c]) / 10.0


def _crop_grad(tf):
    img = _img(tf, 2)
    boxes = tf.constant([[0.1, 0.2, 0.8, 0.9], [0.5, 0.0, 1.0, 0.5]])
    with tf.GradientTape() as tape:
        tape.watch([img, boxes])
        y = tf.reduce_sum(tf.image.crop_and_resize(img, boxes, [0, 1], [3, 2]) ** 2)
    return tape.gradient(y, [img, boxes])


def _textured(tf, seed):
    x = tf.cast(tf.reshape(tf.range(2 * 24 * 24 * 3) % 17, [2, 24, 24, 3]), tf.float32) / 16.0
    return x if seed == 0 else tf.math.abs(tf.math.sin(x * 3.0 + seed))


def _ssim_grad(tf):
    a, b = _textured(tf, 0), _textured(tf, 1)
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.reduce_sum(tf.image.ssim(a, b, 1.0))
    return tf.reduce_sum(tape.gradient(y, a) ** 2)


CASES = {
    "nms": lambda tf: tf.image.non_max_suppression(BOXES, SCORES, 3, 0.5),
    "nms_score_threshold": lambda tf: tf.image.non_max_suppression(BOXES, SCORES, 6, 0.5, score_threshold=0.55),
    "nms_iou_high": lambda tf: tf.image.non_max_suppression(BOXES, SCORES, 6, 0.9),
    "nms_flipped_corners": lambda tf: tf.image.non_max_suppression([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]],
                                                                   [0.5, 0.6], 2, 0.5),
    "nms_with_scores": lambda tf: tf.image.non_max_suppression_with_scores(BOXES, SCORES, 6, 0.5),
    "soft_nms": lambda tf: tf.image.non_max_suppression_with_scores(BOXES, SCORES, 6, 1.0, score_threshold=0.1,
                                                                     soft_nms_sigma=0.5),
    "nms_overlaps": lambda tf: tf.image.non_max_suppression_overlaps(
        [[1.0, 0.7, 0.2], [0.7, 1.0, 0.0], [0.2, 0.0, 1.0]], [0.8, 0.9, 0.5], 3, 0.5),
    "nms_padded": lambda tf: tf.image.non_max_suppression_padded(BOXES, SCORES, 5, 0.5,
                                                                 pad_to_max_output_size=True),
    "nms_padded_batch": lambda tf: tf.image.non_max_suppression_padded(
        tf.constant([BOXES, BOXES[::-1]]), tf.constant([SCORES, SCORES]), 4, 0.5, pad_to_max_output_size=True),
    "nms_in_function": lambda tf: tf.function(lambda b, s: tf.image.non_max_suppression(b, s, 3))(
        tf.constant(BOXES), tf.constant(SCORES)),
    "combined_nms": lambda tf: tf.image.combined_non_max_suppression(
        tf.constant([[[b] for b in BOXES]]) / 101.0, tf.constant([[[s, 1.0 - s] for s in SCORES]]), 2, 3),
    "combined_nms_q_classes_pad": lambda tf: tf.image.combined_non_max_suppression(
        tf.constant([[[b, b] for b in BOXES[:3]]]) - 0.05, tf.constant([[[0.9, 0.1], [0.8, 0.85], [0.2, 0.3]]]), 1,
        5, pad_per_class=True, clip_boxes=False),
    "crop_and_resize": lambda tf: tf.image.crop_and_resize(_img(tf), [[0.1, 0.2, 0.8, 0.9], [0.5, 0.0, 1.0, 0.5]],
                                                           [0, 1], [3, 4]),
    "crop_and_resize_nearest_extrapolate": lambda tf: tf.image.crop_and_resize(
        _img(tf, 2), [[-0.2, 0.3, 0.7, 1.3]], [1], [4, 3], method="nearest", extrapolation_value=-1.0),
    "crop_and_resize_single_pixel": lambda tf: tf.image.crop_and_resize(_img(tf), [[0.2, 0.2, 0.6, 0.8]], [0],
                                                                        [1, 1]),
    "crop_and_resize_uint8": lambda tf: tf.image.crop_and_resize(tf.cast(_img(tf) * 10, tf.uint8),
                                                                 [[0.0, 0.0, 1.0, 1.0]], [0], [2, 3]),
    "crop_and_resize_grad": _crop_grad,
    "draw_boxes": lambda tf: tf.image.draw_bounding_boxes(tf.zeros([1, 5, 6, 3]),
                                                          [[[0.0, 0.0, 0.5, 0.5], [0.25, 0.4, 1.0, 1.0]]],
                                                          [[1.0, 0.0, 0.0, 1.0], [0.0, 0.5, 1.0, 1.0]]),
    "draw_boxes_gray_clipped": lambda tf: tf.image.draw_bounding_boxes(tf.ones([1, 4, 4, 1]),
                                                                       [[[-0.5, 0.3, 0.7, 2.0]]], [[0.25]]),
    "ssim": lambda tf: tf.image.ssim(_textured(tf, 0), _textured(tf, 1), 1.0),
    "ssim_filter5": lambda tf: tf.image.ssim(_textured(tf, 0), _textured(tf, 2), 1.0, filter_size=5,
                                             filter_sigma=1.0),
    "ssim_uint8": lambda tf: tf.image.ssim(tf.cast(_textured(tf, 0) * 255, tf.uint8),
                                           tf.cast(_textured(tf, 1) * 255, tf.uint8), 255),
    "ssim_index_map_shape": lambda tf: tf.image.ssim(_textured(tf, 0), _textured(tf, 1), 1.0,
                                                     return_index_map=True).shape.as_list(),
    "ssim_grad": _ssim_grad,
    "ssim_multiscale": lambda tf: tf.image.ssim_multiscale(
        tf.image.resize(_textured(tf, 0), [180, 170]), tf.image.resize(_textured(tf, 1), [180, 170]), 1.0),
    "ssim_multiscale_3scales": lambda tf: tf.image.ssim_multiscale(_textured(tf, 0), _textured(tf, 2), 1.0,
                                                                   power_factors=(0.5, 0.3, 0.2), filter_size=3),
    "sdbb_facts": lambda tf: _sdbb_facts(tf, tf.image.sample_distorted_bounding_box(
        [40, 60, 3], [[[0.1, 0.2, 0.5, 0.9]]], seed=4, min_object_covered=0.5)),
    "sdbb_stateless_facts": lambda tf: _sdbb_facts(tf, tf.image.stateless_sample_distorted_bounding_box(
        tf.constant([40, 60, 3], tf.int64), [[[0.0, 0.0, 1.0, 1.0]]], seed=[1, 2], area_range=[0.3, 0.6])),
    "sdbb_stateless_repeatable": lambda tf: bool(tf.reduce_all(
        tf.image.stateless_sample_distorted_bounding_box([40, 60, 3], tf.zeros([1, 0, 4]), seed=[3, 4],
                                                         use_image_if_no_bounding_boxes=True).begin ==
        tf.image.stateless_sample_distorted_bounding_box([40, 60, 3], tf.zeros([1, 0, 4]), seed=[3, 4],
                                                         use_image_if_no_bounding_boxes=True).begin)),
    "sdbb_impossible_gives_whole_image": lambda tf: tf.image.stateless_sample_distorted_bounding_box(
        [40, 60, 3], [[[0.0, 0.0, 1.0, 1.0]]], seed=[1, 2], min_object_covered=1.0, area_range=[0.1, 0.2]),
    "sdbb_no_boxes_raises": lambda tf: tf.image.sample_distorted_bounding_box([40, 60, 3], tf.zeros([1, 0, 4])),
}


def _sdbb_facts(tf, r):
    b, s, box = r.begin.numpy(), r.size.numpy(), r.bboxes.numpy()
    inside = bool(b[0] >= 0 and b[1] >= 0 and b[0] + s[0] <= 40 and b[1] + s[1] <= 60)
    return [r.begin.dtype.name, r.size.dtype.name, int(b[2]), int(s[2]), list(box.shape), inside]
