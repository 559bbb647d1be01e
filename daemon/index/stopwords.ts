// English stopwords for the keyword index.
//
// Based on the NLTK English list. Because the tokenizer splits at apostrophes,
// contractions reach us as fragments ("don't" → "don" + "t", "we'll" → "we" + "ll"),
// so the list holds those fragments instead of the apostrophe forms.
// Deliberate differences from NLTK: "won" is NOT a stopword (it is also the past
// tense of "win", which carries meaning in a memory), and a few modal/pronoun forms
// common in conversational text are added ("us", "would", "could").

const WORDS = [
  // pronouns and determiners
  'i', 'me', 'my', 'myself', 'we', 'us', 'our', 'ours', 'ourselves',
  'you', 'your', 'yours', 'yourself', 'yourselves',
  'he', 'him', 'his', 'himself', 'she', 'her', 'hers', 'herself',
  'it', 'its', 'itself', 'they', 'them', 'their', 'theirs', 'themselves',
  'what', 'which', 'who', 'whom', 'this', 'that', 'these', 'those',
  'a', 'an', 'the',
  // auxiliaries and modals
  'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being',
  'have', 'has', 'had', 'having', 'do', 'does', 'did', 'doing',
  'can', 'will', 'should', 'would', 'could',
  // conjunctions, prepositions, adverbs
  'and', 'but', 'if', 'or', 'because', 'as', 'until', 'while',
  'of', 'at', 'by', 'for', 'with', 'about', 'against', 'between', 'into',
  'through', 'during', 'before', 'after', 'above', 'below', 'to', 'from',
  'up', 'down', 'in', 'out', 'on', 'off', 'over', 'under',
  'again', 'further', 'then', 'once', 'here', 'there',
  'when', 'where', 'why', 'how',
  'all', 'any', 'both', 'each', 'few', 'more', 'most', 'other', 'some', 'such',
  'no', 'nor', 'not', 'only', 'own', 'same', 'so', 'than', 'too', 'very',
  'just', 'now',
  // contraction fragments left by splitting at apostrophes
  's', 't', 'd', 'll', 'm', 'o', 're', 've', 'y',
  'ain', 'aren', 'couldn', 'didn', 'doesn', 'don', 'hadn', 'hasn', 'haven',
  'isn', 'ma', 'mightn', 'mustn', 'needn', 'shan', 'shouldn', 'wasn',
  'weren', 'wouldn',
];

export const STOPWORDS: ReadonlySet<string> = new Set(WORDS);
