module example.com/cgofix

go 1.23
