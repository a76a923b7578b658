//! Graphs drawn as SVG on the server: a run's tree of nodes and a workflow's steps and edges.
