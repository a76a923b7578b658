//! Tests of the diagrams: the layouts' properties, and the SVG of real runs and workflows.

mod layouts;
mod svg;
