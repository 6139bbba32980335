import opcheck

opcheck.instrument_registry()
