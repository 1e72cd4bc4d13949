package importer

import "github.com/annals-dev/annals/importer/reader"

// The reader contracts live in importer/reader, which every tool's package imports; importer
// names them too, since they are what a caller of the registry handles.
type (
	// Format is one source format; see reader.Format.
	Format = reader.Format
	// Source is one file, database or directory being imported; see reader.Source.
	Source = reader.Source
	// FileParser is a format read whole every time it changes; see reader.FileParser.
	FileParser = reader.FileParser
	// LineParser is a format read incrementally by lines; see reader.LineParser.
	LineParser = reader.LineParser
	// LineSession parses the lines of one file; see reader.LineSession.
	LineSession = reader.LineSession
	// ServerParser is a format that also reads a database server; see reader.ServerParser.
	ServerParser = reader.ServerParser
	// Output receives what a parser reads; see reader.Output.
	Output = reader.Output
)

// HeadSize is how many leading bytes of a file Detect sees.
const HeadSize = reader.HeadSize
