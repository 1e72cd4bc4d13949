package query

// foldRune maps a lower-case letter with diacritics to its base letter, as SQLite's unicode61
// tokenizer does with remove_diacritics 2. The table was derived from SQLite itself (modernc.org/sqlite
// v1.62.0): every code point of Latin-1 Supplement, Latin Extended-A and -B, Greek, Cyrillic and
// Latin Extended Additional was indexed alone and the token SQLite stored was recorded. The test
// TestFoldAgreesWithSQLite repeats that comparison, so a change on either side shows up.
func foldRune(r rune) rune {
	if r < 0x80 { // ASCII: already lower-cased by the caller, nothing to remove
		return r
	}
	switch r {
	case 'à', 'á', 'â', 'ã', 'ä', 'å', 'ā', 'ă', 'ą', 'ǎ', 'ǟ', 'ǻ', 'ȁ', 'ȃ', 'ȧ', 'ḁ', 'ạ', 'ả', 'ấ', 'ầ', 'ẩ', 'ẫ', 'ậ', 'ắ', 'ằ', 'ẳ', 'ẵ', 'ặ':
		return 'a'
	case 'ḃ', 'ḅ', 'ḇ':
		return 'b'
	case 'ç', 'ć', 'ĉ', 'ċ', 'č', 'ḉ':
		return 'c'
	case 'ď', 'ḋ', 'ḍ', 'ḏ', 'ḑ', 'ḓ':
		return 'd'
	case 'è', 'é', 'ê', 'ë', 'ē', 'ĕ', 'ė', 'ę', 'ě', 'ȅ', 'ȇ', 'ȩ', 'ḕ', 'ḗ', 'ḙ', 'ḛ', 'ḝ', 'ẹ', 'ẻ', 'ẽ', 'ế', 'ề', 'ể', 'ễ', 'ệ':
		return 'e'
	case 'ḟ':
		return 'f'
	case 'ĝ', 'ğ', 'ġ', 'ģ', 'ǧ', 'ǵ', 'ḡ':
		return 'g'
	case 'ĥ', 'ȟ', 'ḣ', 'ḥ', 'ḧ', 'ḩ', 'ḫ', 'ẖ':
		return 'h'
	case 'ì', 'í', 'î', 'ï', 'ĩ', 'ī', 'ĭ', 'į', 'ǐ', 'ȉ', 'ȋ', 'ḭ', 'ḯ', 'ỉ', 'ị':
		return 'i'
	case 'ĵ', 'ǰ':
		return 'j'
	case 'ķ', 'ǩ', 'ḱ', 'ḳ', 'ḵ':
		return 'k'
	case 'ĺ', 'ļ', 'ľ', 'ḷ', 'ḹ', 'ḻ', 'ḽ':
		return 'l'
	case 'ḿ', 'ṁ', 'ṃ':
		return 'm'
	case 'ñ', 'ń', 'ņ', 'ň', 'ǹ', 'ṅ', 'ṇ', 'ṉ', 'ṋ':
		return 'n'
	case 'ò', 'ó', 'ô', 'õ', 'ö', 'ō', 'ŏ', 'ő', 'ơ', 'ǒ', 'ǫ', 'ǭ', 'ȍ', 'ȏ', 'ȫ', 'ȭ', 'ȯ', 'ȱ', 'ṍ', 'ṏ', 'ṑ', 'ṓ', 'ọ', 'ỏ', 'ố', 'ồ', 'ổ', 'ỗ', 'ộ', 'ớ', 'ờ', 'ở', 'ỡ', 'ợ':
		return 'o'
	case 'ṕ', 'ṗ':
		return 'p'
	case 'ŕ', 'ŗ', 'ř', 'ȑ', 'ȓ', 'ṙ', 'ṛ', 'ṝ', 'ṟ':
		return 'r'
	case 'ś', 'ŝ', 'ş', 'š', 'ſ', 'ș', 'ṡ', 'ṣ', 'ṥ', 'ṧ', 'ṩ', 'ẛ':
		return 's'
	case 'ţ', 'ť', 'ț', 'ṫ', 'ṭ', 'ṯ', 'ṱ', 'ẗ':
		return 't'
	case 'ù', 'ú', 'û', 'ü', 'ũ', 'ū', 'ŭ', 'ů', 'ű', 'ų', 'ư', 'ǔ', 'ǖ', 'ǘ', 'ǚ', 'ǜ', 'ȕ', 'ȗ', 'ṳ', 'ṵ', 'ṷ', 'ṹ', 'ṻ', 'ụ', 'ủ', 'ứ', 'ừ', 'ử', 'ữ', 'ự':
		return 'u'
	case 'ṽ', 'ṿ':
		return 'v'
	case 'ŵ', 'ẁ', 'ẃ', 'ẅ', 'ẇ', 'ẉ', 'ẘ':
		return 'w'
	case 'ẋ', 'ẍ':
		return 'x'
	case 'ý', 'ÿ', 'ŷ', 'ȳ', 'ẏ', 'ẙ', 'ỳ', 'ỵ', 'ỷ', 'ỹ':
		return 'y'
	case 'ź', 'ż', 'ž', 'ẑ', 'ẓ', 'ẕ':
		return 'z'
	case 'ϐ':
		return 'β'
	case 'ϵ':
		return 'ε'
	case 'ϑ':
		return 'θ'
	case 'ϰ':
		return 'κ'
	case 'µ':
		return 'μ'
	case 'ϖ':
		return 'π'
	case 'ϱ':
		return 'ρ'
	case 'ς':
		return 'σ'
	case 'ϕ':
		return 'φ'
	}
	return r
}
