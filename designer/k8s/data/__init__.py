"""Reference tables for the engine (GPU sharing, MIG profiles, node shapes, reservations).

Plain Python data, each number with the public source it was taken from beside it, so a
newcomer can check or extend a row without reading the code that uses it. Nothing here
imports Django.
"""
