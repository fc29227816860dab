from arxpy.cli import console_main

console_main()
