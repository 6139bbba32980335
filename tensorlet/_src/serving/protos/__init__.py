"""TF Serving's protobuf messages, built from ``descriptors.py`` in a private descriptor pool.

The ``.proto`` files beside this module declare the messages with TF Serving's packages, names and field
numbers (so they are wire-compatible with its clients); ``tools/gen_serving_protos.py`` compiles them.  A
private pool keeps them apart from TensorFlow's and ``tensorflow-serving-api``'s generated modules.

>>> from tensorlet._src.serving import protos
>>> protos.PredictRequest.DESCRIPTOR.full_name
'tensorflow.serving.PredictRequest'
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from tensorlet._src.serving.protos.descriptors import FILE_DESCRIPTOR_SET

POOL = descriptor_pool.DescriptorPool()
for _file in descriptor_pb2.FileDescriptorSet.FromString(FILE_DESCRIPTOR_SET).file:
    POOL.Add(_file)


def _cls(name):
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(name))


_TF, _TFS = "tensorflow.", "tensorflow.serving."
TensorProto = _cls(_TF + "TensorProto")
TensorShapeProto = _cls(_TF + "TensorShapeProto")
TensorInfo = _cls(_TF + "TensorInfo")
SignatureDef = _cls(_TF + "SignatureDef")
Example = _cls(_TF + "Example")
Feature = _cls(_TF + "Feature")
Any = _cls("google.protobuf.Any")
DataType = POOL.FindEnumTypeByName(_TF + "DataType")
Code = POOL.FindEnumTypeByName("tensorflow.error.Code")

ModelSpec = _cls(_TFS + "ModelSpec")
PredictRequest = _cls(_TFS + "PredictRequest")
PredictResponse = _cls(_TFS + "PredictResponse")
Input = _cls(_TFS + "Input")
ClassificationRequest = _cls(_TFS + "ClassificationRequest")
ClassificationResponse = _cls(_TFS + "ClassificationResponse")
ClassificationResult = _cls(_TFS + "ClassificationResult")
RegressionRequest = _cls(_TFS + "RegressionRequest")
RegressionResponse = _cls(_TFS + "RegressionResponse")
RegressionResult = _cls(_TFS + "RegressionResult")
MultiInferenceRequest = _cls(_TFS + "MultiInferenceRequest")
MultiInferenceResponse = _cls(_TFS + "MultiInferenceResponse")
SignatureDefMap = _cls(_TFS + "SignatureDefMap")
GetModelMetadataRequest = _cls(_TFS + "GetModelMetadataRequest")
GetModelMetadataResponse = _cls(_TFS + "GetModelMetadataResponse")
StatusProto = _cls(_TFS + "StatusProto")
GetModelStatusRequest = _cls(_TFS + "GetModelStatusRequest")
GetModelStatusResponse = _cls(_TFS + "GetModelStatusResponse")
ModelVersionStatus = _cls(_TFS + "ModelVersionStatus")
ReloadConfigRequest = _cls(_TFS + "ReloadConfigRequest")
ReloadConfigResponse = _cls(_TFS + "ReloadConfigResponse")
PredictionLog = _cls(_TFS + "PredictionLog")
ModelServerConfig = _cls(_TFS + "ModelServerConfig")
ModelConfig = _cls(_TFS + "ModelConfig")
MonitoringConfig = _cls(_TFS + "MonitoringConfig")
BatchingParameters = _cls(_TFS + "BatchingParameters")

# (service, method) -> (request class, response class): what the gRPC server and our test client register.
METHODS = {
    ("PredictionService", "Classify"): (ClassificationRequest, ClassificationResponse),
    ("PredictionService", "Regress"): (RegressionRequest, RegressionResponse),
    ("PredictionService", "Predict"): (PredictRequest, PredictResponse),
    ("PredictionService", "MultiInference"): (MultiInferenceRequest, MultiInferenceResponse),
    ("PredictionService", "GetModelMetadata"): (GetModelMetadataRequest, GetModelMetadataResponse),
    ("ModelService", "GetModelStatus"): (GetModelStatusRequest, GetModelStatusResponse),
    ("ModelService", "HandleReloadConfigRequest"): (ReloadConfigRequest, ReloadConfigResponse),
}
