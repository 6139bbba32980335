"""(family nn_conv: being written)"""
