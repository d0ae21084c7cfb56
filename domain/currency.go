package domain

// minorExponents are the currencies whose minor unit is not a hundredth, all of ISO 4217's: the
// API takes any three-letter code, and bookflow stores ISO's minor units.
var minorExponents = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0, "UGX": 0,
	"UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	"CLF": 4, "UYW": 4,
}

// CurrencyExponent is how many decimals currency's minor unit has (2 unless ISO 4217 says
// otherwise: JPY 0, KWD 3).
func CurrencyExponent(currency string) int {
	if e, ok := minorExponents[currency]; ok {
		return e
	}
	return 2
}
