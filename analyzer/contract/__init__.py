"""What the tool promises its users: the result models (plain dataclasses), the JSON
shapes, the command registry, the one way JSON is printed, the tool's own codes and
the code catalogue. Imports core and engine only.
"""
