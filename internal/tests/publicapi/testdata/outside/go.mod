// A program outside paneteam's module, built by TestOutsideModule: it
// must compile against the root packages alone. The test replaces
// paneteam with the work tree under test and lets the go command fill in
// the rest of the requirements from paneteam's own.
module example.com/outside

go 1.26.8

require github.com/paneteam/paneteam v0.0.0

replace github.com/paneteam/paneteam => ../../../../..
