"""(family scan_sort: being written)"""
