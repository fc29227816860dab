"""Package data shipped with arxpy (as ``arxpy.resources``): example reference tables, icons."""
