"""Property keys that are usable both as dict keys and as functions, as in OpenVINO's Python API:

    {properties.enable_profiling: True}       # the key is the string "PERF_COUNT"
    dict([properties.enable_profiling(True)])  # calling it makes the (key, value) pair
"""


class Property(str):
    """A property key. It is a str equal to its key (so it hashes and compares as one); calling it
    returns (key, value), with the value converted by `convert` when the property has one."""

    def __new__(cls, key, convert=None):
        self = super().__new__(cls, key)
        self._convert = convert
        return self

    def __call__(self, *args):
        if self._convert is not None:
            return (str(self), self._convert(*args))
        if len(args) != 1:
            raise TypeError(f"property {str(self)!r} takes one value, got {len(args)}")
        return (str(self), args[0])

    def __repr__(self):
        return f"<Property {str(self)!r}>"
