"""DuckDB's Python exception hierarchy (PEP 249 bases, then one class per DuckDB error type),
and the choice of class from the C API's duckdb_error_type or a message's "X Error:" prefix."""


class Warning(Exception):  # noqa: A001 - PEP 249 name
    pass


class Error(Exception):
    pass


class DatabaseError(Error):
    pass


class DataError(DatabaseError):
    pass


class OperationalError(DatabaseError):
    pass


class IntegrityError(DatabaseError):
    pass


class InternalError(DatabaseError):
    pass


class ProgrammingError(DatabaseError):
    pass


class NotSupportedError(DatabaseError):
    pass


def _define(name, base):
    return type(name, (base,), {"__module__": "duckdb"})


BinderException = _define("BinderException", ProgrammingError)
CatalogException = _define("CatalogException", ProgrammingError)
ParserException = _define("ParserException", ProgrammingError)
SyntaxException = _define("SyntaxException", ProgrammingError)
InvalidInputException = _define("InvalidInputException", ProgrammingError)
InvalidTypeException = _define("InvalidTypeException", ProgrammingError)
ParameterNotResolvedException = _define("ParameterNotResolvedException", ProgrammingError)
ParameterNotAllowedException = _define("ParameterNotAllowedException", ProgrammingError)
ConversionException = _define("ConversionException", DataError)
OutOfRangeException = _define("OutOfRangeException", DataError)
TypeMismatchException = _define("TypeMismatchException", DataError)
IOException = _define("IOException", OperationalError)
HTTPException = _define("HTTPException", IOException)
ConnectionException = _define("ConnectionException", OperationalError)
SerializationException = _define("SerializationException", OperationalError)
TransactionException = _define("TransactionException", OperationalError)
OutOfMemoryException = _define("OutOfMemoryException", OperationalError)
ConstraintException = _define("ConstraintException", IntegrityError)
InternalException = _define("InternalException", InternalError)
NotImplementedException = _define("NotImplementedException", NotSupportedError)
InterruptException = _define("InterruptException", DatabaseError)
PermissionException = _define("PermissionException", DatabaseError)
FatalException = _define("FatalException", DatabaseError)
DependencyException = _define("DependencyException", DatabaseError)
SequenceException = _define("SequenceException", DatabaseError)

# duckdb_error_type (duckdb.h), in the order of DuckDB's ExceptionType.
BY_ERROR_TYPE = {
    1: OutOfRangeException,
    2: ConversionException,
    3: InvalidTypeException,  # unknown type
    4: ConversionException,  # decimal
    5: TypeMismatchException,
    6: OutOfRangeException,  # divide by zero
    7: OutOfRangeException,  # object size
    8: InvalidTypeException,
    9: SerializationException,
    10: TransactionException,
    11: NotImplementedException,
    12: ProgrammingError,  # expression
    13: CatalogException,
    14: ParserException,
    15: ProgrammingError,  # planner
    16: InternalException,  # scheduler
    17: InvalidInputException,  # executor
    18: ConstraintException,
    19: IntegrityError,  # index
    20: ProgrammingError,  # stat
    21: ConnectionException,
    22: SyntaxException,
    23: ProgrammingError,  # settings
    24: BinderException,
    25: IOException,  # network
    26: ProgrammingError,  # optimizer
    27: InternalException,  # null pointer
    28: IOException,
    29: InterruptException,
    30: FatalException,
    31: InternalException,
    32: InvalidInputException,
    33: OutOfMemoryException,
    34: PermissionException,
    35: ParameterNotResolvedException,
    36: ParameterNotAllowedException,
    37: DependencyException,
    38: HTTPException,
    39: IOException,  # missing extension
    40: IOException,  # autoload
    41: SequenceException,
    42: InvalidInputException,  # invalid configuration
}

# The prefix DuckDB puts on every message ("Catalog Error: ..."), for errors that come
# without a type (those of duckdb_prepare).
BY_PREFIX = {
    "Out of Range": OutOfRangeException,
    "Conversion": ConversionException,
    "Invalid type": InvalidTypeException,
    "Mismatch Type": TypeMismatchException,
    "Not implemented": NotImplementedException,
    "Catalog": CatalogException,
    "Parser": ParserException,
    "Syntax": SyntaxException,
    "Binder": BinderException,
    "IO": IOException,
    "Invalid Input": InvalidInputException,
    "Invalid Configuration": InvalidInputException,
    "Out of Memory": OutOfMemoryException,
    "Permission": PermissionException,
    "Constraint": ConstraintException,
    "Transaction": TransactionException,
    "Interrupt": InterruptException,
    "INTERNAL": InternalException,
    "Dependency": DependencyException,
    "Missing Extension": IOException,
    "Sequence": SequenceException,
}


def error_from_type(error_type, message):
    return BY_ERROR_TYPE.get(error_type, DatabaseError)(message)


def error_from_message(message):
    prefix = message.split(" Error:", 1)[0] if " Error:" in message[:40] else ""
    return BY_PREFIX.get(prefix, DatabaseError)(message)
