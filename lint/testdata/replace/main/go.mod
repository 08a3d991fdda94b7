module example.com/main

go 1.23

require example.com/lib v0.0.0

replace example.com/lib => ../lib
