"""(family nn_norm: being written)"""
