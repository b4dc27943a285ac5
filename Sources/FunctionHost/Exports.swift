// What user code in functions/ needs, with `import FunctionHost` alone.
@_exported public import DataAPI
@_exported public import JSON
@_exported public import struct Logging.Logger
