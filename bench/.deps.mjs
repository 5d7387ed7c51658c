import "uuid"; import "p-queue"; import "fastest-levenshtein";
