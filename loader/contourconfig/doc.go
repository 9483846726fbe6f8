// Package contourconfig decodes Contour's configuration file (contour
// serve --config-path) strictly into Config, with the checks Contour makes
// at start-up, and records the keys only Contour's main branch has. The
// loader reads the file (LoadContourConfig); translate resolves Config into
// its settings.
package contourconfig
