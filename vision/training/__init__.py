"""Training the learned reader's networks (needs the ``train`` extra: PyTorch and onnx).

:mod:`vision.training.data` cuts samples from rendered training sets and real labelled folders,
:mod:`vision.training.nets` defines the two networks, :mod:`vision.training.train` trains them,
mines the detector's false finds for the face network, fits its temperature and exports both to
ONNX. ``dicetray train`` runs it all; nothing here is imported at run time.
"""
