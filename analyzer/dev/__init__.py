"""Tools that build and check the product rather than analyze a project: generated
docs (gendocs), the conformance command, the generated grammar terms.
"""
