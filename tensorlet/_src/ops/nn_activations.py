"""(family nn_activations: being written)"""
