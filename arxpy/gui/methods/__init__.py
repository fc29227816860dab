"""Methods other than the lattice search in the desktop application: the method choice
and form in Configure, background runs, the runs page in Explore and the result views
registered per method (:mod:`arxpy.gui.methods.views`)."""
