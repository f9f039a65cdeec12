/* Initialiser body, included in the middle of a declaration by include/table.c (a nested
   include relative to the including file's directory). */
1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144
