/**
 * Real names and rough real-world figures (mid-2025) that make the sample data feel familiar.
 * Lists are in popularity order; the generator takes a prefix and synthesizes the rest. The
 * renamed, delisted and hidden entries are real events (OKEx → OKX, FTX's collapse, …) placed
 * early so every preset contains them.
 */

export interface CatalogFlagsSeed {
  previous?: string[];
  delisted?: boolean;
  hidden?: boolean;
}

export interface FamousCurrency extends CatalogFlagsSeed {
  symbol: string;
  /** Overrides the `cryptocurrencies` package name where it is outdated. */
  name?: string;
  category: string;
  price: number;
  circulating: number;
  total: number | null;
  max: number | null;
  sign?: string;
}

// prettier-ignore
export const FAMOUS_CURRENCIES: readonly FamousCurrency[] = [
  {
    symbol: 'BTC',
    category: 'Layer 1',
    price: 104250,
    circulating: 19_881_250,
    total: 19_881_250,
    max: 21_000_000,
    sign: '₿',
  },
  {
    symbol: 'ETH',
    category: 'Layer 1',
    price: 2535.4,
    circulating: 120_712_480.41,
    total: 120_712_480.41,
    max: null,
    sign: 'Ξ',
  },
  {
    symbol: 'USDT',
    category: 'Stablecoin',
    price: 1.0003,
    circulating: 155_312_004_118.5,
    total: 157_406_283_007.1,
    max: null,
    sign: '₮',
  },
  {
    symbol: 'XRP',
    category: 'Payments',
    price: 2.24,
    circulating: 58_912_334_005,
    total: 99_986_243_015,
    max: 100_000_000_000,
  },
  {
    symbol: 'BNB',
    category: 'Exchange Token',
    price: 651.2,
    circulating: 145_887_575.79,
    total: 145_887_575.79,
    max: 200_000_000,
  },
  {
    symbol: 'SOL',
    category: 'Layer 1',
    price: 151.8,
    circulating: 525_118_420.2,
    total: 601_334_120.9,
    max: null,
    sign: '◎',
  },
  {
    symbol: 'USDC',
    category: 'Stablecoin',
    price: 0.9998,
    circulating: 61_534_220_871.2,
    total: 61_534_220_871.2,
    max: null,
  },
  {
    symbol: 'DOGE',
    category: 'Meme',
    price: 0.1812,
    circulating: 149_631_296_384,
    total: 149_631_296_384,
    max: null,
    sign: 'Ð',
  },
  { symbol: 'TRX', category: 'Layer 1', price: 0.2731, circulating: 94_812_003_512, total: 94_812_003_512, max: null },
  {
    symbol: 'ADA',
    category: 'Layer 1',
    price: 0.6204,
    circulating: 35_401_228_911,
    total: 44_994_210_030,
    max: 45_000_000_000,
    sign: '₳',
  },
  {
    symbol: 'STETH',
    name: 'Lido Staked Ether',
    category: 'Liquid Staking',
    price: 2533.1,
    circulating: 9_402_881.3,
    total: 9_402_881.3,
    max: null,
  },
  { symbol: 'WBTC', category: 'Wrapped', price: 104011, circulating: 129_113.4, total: 129_113.4, max: null },
  {
    symbol: 'HYPE',
    name: 'Hyperliquid',
    category: 'Layer 1',
    price: 38.12,
    circulating: 334_005_112,
    total: 999_812_300,
    max: 1_000_000_000,
  },
  {
    symbol: 'SUI',
    category: 'Layer 1',
    price: 3.02,
    circulating: 3_408_822_100,
    total: 10_000_000_000,
    max: 10_000_000_000,
  },
  {
    symbol: 'LINK',
    category: 'Oracle',
    price: 13.48,
    circulating: 657_099_970,
    total: 1_000_000_000,
    max: 1_000_000_000,
  },
  { symbol: 'AVAX', category: 'Layer 1', price: 18.55, circulating: 422_104_330, total: 458_402_100, max: 720_000_000 },
  {
    symbol: 'XLM',
    category: 'Payments',
    price: 0.2614,
    circulating: 31_080_118_230,
    total: 50_001_786_887,
    max: 50_001_806_812,
  },
  { symbol: 'BCH', category: 'Payments', price: 471.3, circulating: 19_891_431, total: 19_891_431, max: 21_000_000 },
  { symbol: 'LEO', category: 'Exchange Token', price: 9.11, circulating: 923_301_540, total: 985_239_504, max: null },
  {
    symbol: 'TON',
    name: 'Toncoin',
    category: 'Layer 1',
    price: 3.01,
    circulating: 2_463_055_440,
    total: 5_145_198_302,
    max: null,
  },
  {
    symbol: 'SHIB',
    category: 'Meme',
    price: 0.00001184,
    circulating: 589_260_128_451_207,
    total: 589_499_821_003_118,
    max: null,
  },
  {
    symbol: 'HBAR',
    category: 'Layer 1',
    price: 0.1602,
    circulating: 42_288_811_003,
    total: 50_000_000_000,
    max: 50_000_000_000,
  },
  {
    symbol: 'USDE',
    category: 'Stablecoin',
    price: 1.0005,
    circulating: 5_338_910_224.7,
    total: 5_338_910_224.7,
    max: null,
  },
  {
    symbol: 'LTC',
    category: 'Payments',
    price: 86.02,
    circulating: 76_005_118.3,
    total: 84_000_000,
    max: 84_000_000,
    sign: 'Ł',
  },
  { symbol: 'DOT', category: 'Layer 0', price: 3.51, circulating: 1_522_267_060, total: 1_522_267_060, max: null },
  {
    symbol: 'DAI',
    category: 'Stablecoin',
    price: 0.9999,
    circulating: 5_365_002_881.4,
    total: 5_365_002_881.4,
    max: null,
  },
  {
    symbol: 'XMR',
    category: 'Privacy',
    price: 321.7,
    circulating: 18_446_744.1,
    total: 18_446_744.1,
    max: null,
    sign: 'ɱ',
  },
  {
    symbol: 'PEPE',
    category: 'Meme',
    price: 0.00000951,
    circulating: 420_689_899_653_543,
    total: 420_689_899_653_543,
    max: 420_690_000_000_000,
  },
  {
    symbol: 'UNI',
    name: 'Uniswap',
    category: 'DeFi',
    price: 7.21,
    circulating: 600_483_073,
    total: 1_000_000_000,
    max: 1_000_000_000,
  },
  { symbol: 'AAVE', category: 'DeFi', price: 265.4, circulating: 15_123_880, total: 16_000_000, max: 16_000_000 },
  {
    symbol: 'NEAR',
    name: 'NEAR Protocol',
    category: 'Layer 1',
    price: 2.31,
    circulating: 1_224_004_511,
    total: 1_245_102_330,
    max: null,
  },
  { symbol: 'APT', category: 'Layer 1', price: 4.82, circulating: 634_118_400, total: 1_160_220_114, max: null },
  { symbol: 'ICP', category: 'Layer 1', price: 5.22, circulating: 535_004_117, total: 535_004_117, max: null },
  { symbol: 'ETC', category: 'Layer 1', price: 16.81, circulating: 152_009_550, total: 152_009_550, max: 210_700_000 },
  // Real renames: MATIC became POL (2024), FTM became S (2024), LUNA became LUNC (2022).
  {
    symbol: 'POL',
    category: 'Layer 2',
    price: 0.2107,
    circulating: 10_512_113_004,
    total: 10_512_113_004,
    max: null,
    previous: ['polygon'],
  },
  {
    symbol: 'ENA',
    category: 'DeFi',
    price: 0.3012,
    circulating: 6_121_400_220,
    total: 15_000_000_000,
    max: 15_000_000_000,
  },
  {
    symbol: 'ARB',
    category: 'Layer 2',
    price: 0.3341,
    circulating: 4_808_150_119,
    total: 10_000_000_000,
    max: 10_000_000_000,
  },
  {
    symbol: 'OP',
    category: 'Layer 2',
    price: 0.6015,
    circulating: 1_698_003_226,
    total: 4_294_967_296,
    max: 4_294_967_296,
  },
  {
    symbol: 'ATOM',
    category: 'Layer 0',
    price: 4.21,
    circulating: 433_120_004,
    total: 433_120_004,
    max: null,
    sign: '⚛',
  },
  {
    symbol: 'FIL',
    name: 'Filecoin',
    category: 'Storage',
    price: 2.49,
    circulating: 663_400_120,
    total: 1_960_000_000,
    max: 1_960_000_000,
  },
  {
    symbol: 'S',
    name: 'Sonic',
    category: 'Layer 1',
    price: 0.3302,
    circulating: 2_881_004_130,
    total: 3_175_000_000,
    max: null,
    previous: ['fantom'],
  },
  { symbol: 'MKR', category: 'DeFi', price: 1702.5, circulating: 869_113.2, total: 1_005_577.2, max: 1_005_577.2 },
  {
    symbol: 'LDO',
    category: 'DeFi',
    price: 0.8512,
    circulating: 896_120_331,
    total: 1_000_000_000,
    max: 1_000_000_000,
  },
  {
    symbol: 'CRV',
    category: 'DeFi',
    price: 0.6031,
    circulating: 1_330_215_600,
    total: 2_271_010_400,
    max: 3_030_303_031,
  },
  {
    symbol: 'COMP',
    name: 'Compound',
    category: 'DeFi',
    price: 45.31,
    circulating: 9_380_512,
    total: 10_000_000,
    max: 10_000_000,
  },
  {
    symbol: 'FDUSD',
    category: 'Stablecoin',
    price: 0.9991,
    circulating: 1_403_001_772.6,
    total: 1_403_001_772.6,
    max: null,
  },
  {
    symbol: 'PYUSD',
    category: 'Stablecoin',
    price: 1.0001,
    circulating: 915_004_110.2,
    total: 915_004_110.2,
    max: null,
  },
  {
    symbol: 'EURC',
    category: 'Stablecoin',
    price: 1.1402,
    circulating: 218_600_340.9,
    total: 218_600_340.9,
    max: null,
    sign: '€',
  },
  { symbol: 'RETH', category: 'Liquid Staking', price: 2889.3, circulating: 221_004.1, total: 221_004.1, max: null },
  {
    symbol: 'WSTETH',
    category: 'Liquid Staking',
    price: 3064.8,
    circulating: 3_391_220.4,
    total: 3_391_220.4,
    max: null,
  },
  {
    symbol: 'LUNC',
    category: 'Layer 1',
    price: 0.00005902,
    circulating: 5_479_112_330_118,
    total: 6_873_400_200_334,
    max: null,
    previous: ['terra'],
  },
  // Collapsed in 2022: kept in the catalogue, delisted from the API.
  {
    symbol: 'USTC',
    category: 'Stablecoin',
    price: 0.01305,
    circulating: 5_624_101_880,
    total: 5_624_101_880,
    max: null,
    delisted: true,
  },
  {
    symbol: 'FTT',
    category: 'Exchange Token',
    price: 0.8905,
    circulating: 328_895_103,
    total: 328_895_103,
    max: 352_170_015,
    delisted: true,
  },
  // Imported but not yet reviewed for publication.
  {
    symbol: 'PI',
    category: 'Layer 1',
    price: 0.00211,
    circulating: 910_114_330,
    total: 1_000_000_000,
    max: null,
    hidden: true,
  },
  {
    symbol: 'SKY',
    category: 'Infrastructure',
    price: 0.0512,
    circulating: 23_110_332,
    total: 25_000_000,
    max: 100_000_000,
    hidden: true,
  },
];

/** Package entries superseded by a renamed famous currency (their slug is a former slug). */
export const SUPERSEDED_SYMBOLS: readonly string[] = ['MATIC', 'FTM', 'LUNA'];

/** What renamed platforms and currencies were called under their former slugs. */
export const FORMER_NAMES: Readonly<Record<string, string>> = {
  okex: 'OKEx',
  'huobi-global': 'Huobi Global',
  huobi: 'Huobi',
  bitkeep: 'BitKeep',
  'gnosis-safe': 'Gnosis Safe',
  sushiswap: 'SushiSwap',
  instadapp: 'Instadapp',
  polygon: 'Polygon',
  fantom: 'Fantom',
  terra: 'Terra',
};

/** Chains offers run on, by currency symbol (the chain's native asset). */
export const CHAIN_SYMBOLS: readonly string[] = [
  'ETH',
  'ARB',
  'OP',
  'BNB',
  'SOL',
  'POL',
  'AVAX',
  'TRX',
  'SUI',
  'TON',
  'NEAR',
  'APT',
];

/** Governance or incentive tokens protocols pay as rewards. */
export const REWARD_SYMBOLS: Readonly<Record<string, string>> = {
  aave: 'AAVE',
  compound: 'COMP',
  curve: 'CRV',
  lido: 'LDO',
  uniswap: 'UNI',
  ethena: 'ENA',
  makerdao: 'MKR',
};

export const CURRENCY_CATEGORIES: readonly string[] = [
  'Token',
  'DeFi',
  'Layer 1',
  'Layer 2',
  'Meme',
  'Gaming',
  'AI',
  'Infrastructure',
  'Payments',
  'Privacy',
  'NFT',
  'Real World Assets',
];

export interface RealExchange extends CatalogFlagsSeed {
  name: string;
  url: string;
  weeklyVisits: number;
  dailyVolume: number;
  centralized?: false;
}

// prettier-ignore
export const REAL_EXCHANGES: readonly RealExchange[] = [
  { name: 'Binance', url: 'https://www.binance.com', weeklyVisits: 18_400_000, dailyVolume: 15_200_000_000 },
  { name: 'Coinbase', url: 'https://www.coinbase.com', weeklyVisits: 9_600_000, dailyVolume: 2_900_000_000 },
  { name: 'OKX', url: 'https://www.okx.com', weeklyVisits: 6_300_000, dailyVolume: 1_850_000_000, previous: ['okex'] },
  { name: 'Bybit', url: 'https://www.bybit.com', weeklyVisits: 7_100_000, dailyVolume: 2_450_000_000 },
  { name: 'Upbit', url: 'https://upbit.com', weeklyVisits: 4_800_000, dailyVolume: 2_200_000_000 },
  { name: 'Kraken', url: 'https://www.kraken.com', weeklyVisits: 3_900_000, dailyVolume: 1_100_000_000 },
  { name: 'Bitget', url: 'https://www.bitget.com', weeklyVisits: 3_400_000, dailyVolume: 1_900_000_000 },
  { name: 'KuCoin', url: 'https://www.kucoin.com', weeklyVisits: 3_100_000, dailyVolume: 920_000_000 },
  { name: 'Gate.io', url: 'https://www.gate.io', weeklyVisits: 2_900_000, dailyVolume: 1_200_000_000 },
  {
    name: 'HTX',
    url: 'https://www.htx.com',
    weeklyVisits: 2_200_000,
    dailyVolume: 700_000_000,
    previous: ['huobi-global', 'huobi'],
  },
  { name: 'Crypto.com', url: 'https://crypto.com/exchange', weeklyVisits: 4_100_000, dailyVolume: 1_300_000_000 },
  { name: 'MEXC', url: 'https://www.mexc.com', weeklyVisits: 3_200_000, dailyVolume: 1_400_000_000 },
  { name: 'Bitfinex', url: 'https://www.bitfinex.com', weeklyVisits: 900_000, dailyVolume: 120_000_000 },
  { name: 'Gemini', url: 'https://www.gemini.com', weeklyVisits: 800_000, dailyVolume: 80_000_000 },
  { name: 'FTX', url: 'https://ftx.com', weeklyVisits: 5_500_000, dailyVolume: 2_100_000_000, delisted: true },
  { name: 'Bitrue', url: 'https://www.bitrue.com', weeklyVisits: 450_000, dailyVolume: 310_000_000, hidden: true },
  { name: 'Bitstamp', url: 'https://www.bitstamp.net', weeklyVisits: 600_000, dailyVolume: 150_000_000 },
  { name: 'Bithumb', url: 'https://www.bithumb.com', weeklyVisits: 2_000_000, dailyVolume: 800_000_000 },
  {
    name: 'Hyperliquid',
    url: 'https://hyperliquid.xyz',
    weeklyVisits: 1_600_000,
    dailyVolume: 650_000_000,
    centralized: false,
  },
  { name: 'BingX', url: 'https://bingx.com', weeklyVisits: 1_400_000, dailyVolume: 540_000_000 },
  { name: 'Bitvavo', url: 'https://bitvavo.com', weeklyVisits: 1_100_000, dailyVolume: 210_000_000 },
  { name: 'Bittrex', url: 'https://bittrex.com', weeklyVisits: 300_000, dailyVolume: 40_000_000, delisted: true },
  { name: 'Binance.US', url: 'https://www.binance.us', weeklyVisits: 500_000, dailyVolume: 30_000_000 },
  {
    name: 'Uniswap',
    url: 'https://app.uniswap.org',
    weeklyVisits: 1_900_000,
    dailyVolume: 1_600_000_000,
    centralized: false,
  },
  { name: 'dYdX', url: 'https://dydx.trade', weeklyVisits: 400_000, dailyVolume: 250_000_000, centralized: false },
  {
    name: 'PancakeSwap',
    url: 'https://pancakeswap.finance',
    weeklyVisits: 1_300_000,
    dailyVolume: 900_000_000,
    centralized: false,
  },
  { name: 'Poloniex', url: 'https://poloniex.com', weeklyVisits: 350_000, dailyVolume: 95_000_000 },
  { name: 'LBank', url: 'https://www.lbank.com', weeklyVisits: 700_000, dailyVolume: 480_000_000 },
  { name: 'WhiteBIT', url: 'https://whitebit.com', weeklyVisits: 650_000, dailyVolume: 520_000_000 },
  { name: 'BitMart', url: 'https://www.bitmart.com', weeklyVisits: 500_000, dailyVolume: 260_000_000 },
  // Same weekly visits on purpose: exercises the slug tie-break of the exchange list.
  { name: 'Bitso', url: 'https://bitso.com', weeklyVisits: 412_000, dailyVolume: 35_000_000 },
  { name: 'Luno', url: 'https://www.luno.com', weeklyVisits: 412_000, dailyVolume: 12_000_000 },
  { name: 'Deribit', url: 'https://www.deribit.com', weeklyVisits: 380_000, dailyVolume: 60_000_000 },
  { name: 'Phemex', url: 'https://phemex.com', weeklyVisits: 360_000, dailyVolume: 150_000_000 },
  { name: 'CoinEx', url: 'https://www.coinex.com', weeklyVisits: 340_000, dailyVolume: 110_000_000 },
  { name: 'XT.com', url: 'https://www.xt.com', weeklyVisits: 330_000, dailyVolume: 280_000_000 },
  { name: 'bitFlyer', url: 'https://bitflyer.com', weeklyVisits: 600_000, dailyVolume: 70_000_000 },
  { name: 'Korbit', url: 'https://www.korbit.co.kr', weeklyVisits: 150_000, dailyVolume: 18_000_000 },
  { name: 'Coincheck', url: 'https://coincheck.com', weeklyVisits: 520_000, dailyVolume: 45_000_000 },
  { name: 'Zaif', url: 'https://zaif.jp', weeklyVisits: 60_000, dailyVolume: 2_000_000, hidden: true },
  { name: 'Indodax', url: 'https://indodax.com', weeklyVisits: 310_000, dailyVolume: 20_000_000 },
  { name: 'CoinDCX', url: 'https://coindcx.com', weeklyVisits: 290_000, dailyVolume: 15_000_000 },
  { name: 'Bitpanda', url: 'https://www.bitpanda.com', weeklyVisits: 420_000, dailyVolume: 25_000_000 },
  { name: 'Uphold', url: 'https://uphold.com', weeklyVisits: 330_000, dailyVolume: 9_000_000 },
  { name: 'BtcTurk', url: 'https://www.btcturk.com', weeklyVisits: 380_000, dailyVolume: 85_000_000 },
];

export interface RealWallet extends CatalogFlagsSeed {
  name: string;
  url: string;
  type: 'hardware' | 'software' | 'smart-contract';
  platforms: string[];
  services: string[];
}

const MOBILE = ['iOS', 'Android'];
const DESKTOP = ['Windows', 'macOS', 'Linux'];
const EXTENSION = ['Chrome Extension', 'Firefox Extension'];

// prettier-ignore
export const REAL_WALLETS: readonly RealWallet[] = [
  {
    name: 'Ledger',
    url: 'https://www.ledger.com',
    type: 'hardware',
    platforms: ['Hardware', ...DESKTOP, ...MOBILE],
    services: ['Staking', 'Buy Crypto', 'Swap', 'NFT Support'],
  },
  {
    name: 'MetaMask',
    url: 'https://metamask.io',
    type: 'software',
    platforms: [...EXTENSION, ...MOBILE],
    services: ['Swap', 'Bridge', 'Buy Crypto', 'dApp Browser', 'Hardware Wallet Support'],
  },
  {
    name: 'Trezor',
    url: 'https://trezor.io',
    type: 'hardware',
    platforms: ['Hardware', ...DESKTOP, 'Web'],
    services: ['Swap', 'Buy Crypto', 'Coin Control'],
  },
  {
    name: 'Exodus',
    url: 'https://www.exodus.com',
    type: 'software',
    platforms: [...DESKTOP, ...MOBILE, 'Chrome Extension'],
    services: ['Swap', 'Staking', 'Buy Crypto', 'Hardware Wallet Support'],
  },
  {
    name: 'Trust Wallet',
    url: 'https://trustwallet.com',
    type: 'software',
    platforms: [...MOBILE, 'Chrome Extension'],
    services: ['Swap', 'Staking', 'dApp Browser', 'Buy Crypto'],
  },
  {
    name: 'Phantom',
    url: 'https://phantom.com',
    type: 'software',
    platforms: [...EXTENSION, ...MOBILE],
    services: ['Swap', 'Staking', 'NFT Support'],
  },
  // Real renames: BitKeep became Bitget Wallet (2023), Gnosis Safe became Safe (2022).
  {
    name: 'Bitget Wallet',
    url: 'https://web3.bitget.com',
    type: 'software',
    platforms: [...MOBILE, 'Chrome Extension'],
    services: ['Swap', 'Bridge', 'dApp Browser'],
    previous: ['bitkeep'],
  },
  {
    name: 'Coinbase Wallet',
    url: 'https://www.coinbase.com/wallet',
    type: 'software',
    platforms: [...MOBILE, 'Chrome Extension'],
    services: ['Swap', 'Buy Crypto', 'dApp Browser', 'NFT Support'],
  },
  {
    name: 'Safe',
    url: 'https://safe.global',
    type: 'smart-contract',
    platforms: ['Web', ...MOBILE],
    services: ['Multisig', 'dApp Browser'],
    previous: ['gnosis-safe'],
  },
  {
    name: 'Samourai Wallet',
    url: 'https://samouraiwallet.com',
    type: 'software',
    platforms: ['Android'],
    services: ['CoinJoin', 'Coin Control'],
    delisted: true,
  },
  {
    name: 'OKX Wallet',
    url: 'https://web3.okx.com',
    type: 'software',
    platforms: [...MOBILE, ...EXTENSION],
    services: ['Swap', 'Bridge', 'Staking', 'dApp Browser'],
  },
  {
    name: 'Rabby',
    url: 'https://rabby.io',
    type: 'software',
    platforms: ['Chrome Extension', ...DESKTOP, ...MOBILE],
    services: ['Swap', 'Bridge', 'Hardware Wallet Support'],
  },
  {
    name: 'Rainbow',
    url: 'https://rainbow.me',
    type: 'software',
    platforms: [...MOBILE, 'Chrome Extension'],
    services: ['Swap', 'NFT Support'],
  },
  {
    name: 'imToken',
    url: 'https://token.im',
    type: 'software',
    platforms: MOBILE,
    services: ['Swap', 'Staking', 'dApp Browser'],
  },
  {
    name: 'Frame',
    url: 'https://frame.sh',
    type: 'software',
    platforms: DESKTOP,
    services: ['Hardware Wallet Support'],
    hidden: true,
  },
  {
    name: 'Argent',
    url: 'https://www.argent.xyz',
    type: 'smart-contract',
    platforms: [...MOBILE, 'Chrome Extension'],
    services: ['Swap', 'Staking', 'Social Recovery'],
  },
  {
    name: 'Atomic Wallet',
    url: 'https://atomicwallet.io',
    type: 'software',
    platforms: [...DESKTOP, ...MOBILE],
    services: ['Swap', 'Staking', 'Buy Crypto'],
  },
  {
    name: 'Electrum',
    url: 'https://electrum.org',
    type: 'software',
    platforms: [...DESKTOP, 'Android'],
    services: ['Coin Control', 'Hardware Wallet Support', 'Lightning'],
  },
  {
    name: 'Tangem',
    url: 'https://tangem.com',
    type: 'hardware',
    platforms: ['Hardware', ...MOBILE],
    services: ['Swap', 'Buy Crypto', 'Staking'],
  },
  {
    name: 'SafePal',
    url: 'https://www.safepal.com',
    type: 'hardware',
    platforms: ['Hardware', ...MOBILE, 'Chrome Extension'],
    services: ['Swap', 'Bridge', 'dApp Browser'],
  },
  {
    name: 'Keplr',
    url: 'https://www.keplr.app',
    type: 'software',
    platforms: [...EXTENSION, ...MOBILE],
    services: ['Staking', 'Governance'],
  },
  {
    name: 'Zengo',
    url: 'https://zengo.com',
    type: 'software',
    platforms: MOBILE,
    services: ['Swap', 'Buy Crypto', 'Social Recovery'],
  },
  {
    name: 'BlueWallet',
    url: 'https://bluewallet.io',
    type: 'software',
    platforms: [...MOBILE, 'macOS'],
    services: ['Lightning', 'Multisig'],
  },
  {
    name: 'Sparrow',
    url: 'https://sparrowwallet.com',
    type: 'software',
    platforms: DESKTOP,
    services: ['Coin Control', 'Multisig', 'Hardware Wallet Support'],
  },
  {
    name: 'Keystone',
    url: 'https://keyst.one',
    type: 'hardware',
    platforms: ['Hardware'],
    services: ['Multisig', 'dApp Browser'],
  },
  {
    name: 'BitBox02',
    url: 'https://bitbox.swiss',
    type: 'hardware',
    platforms: ['Hardware', ...DESKTOP, 'Android'],
    services: ['Swap', 'Coin Control'],
  },
  {
    name: 'Guarda',
    url: 'https://guarda.com',
    type: 'software',
    platforms: [...DESKTOP, ...MOBILE, 'Web'],
    services: ['Swap', 'Staking', 'Buy Crypto'],
    hidden: true,
  },
  {
    name: 'Coldcard',
    url: 'https://coldcard.com',
    type: 'hardware',
    platforms: ['Hardware'],
    services: ['Multisig', 'Coin Control'],
  },
  { name: 'Edge', url: 'https://edge.app', type: 'software', platforms: MOBILE, services: ['Swap', 'Buy Crypto'] },
  {
    name: 'Mycelium',
    url: 'https://wallet.mycelium.com',
    type: 'software',
    platforms: ['Android', 'iOS'],
    services: ['Coin Control'],
  },
  {
    name: 'Wasabi Wallet',
    url: 'https://wasabiwallet.io',
    type: 'software',
    platforms: DESKTOP,
    services: ['CoinJoin', 'Coin Control'],
  },
  {
    name: 'Zerion',
    url: 'https://zerion.io',
    type: 'software',
    platforms: [...MOBILE, 'Chrome Extension'],
    services: ['Swap', 'Bridge', 'NFT Support'],
  },
  {
    name: 'Backpack',
    url: 'https://backpack.app',
    type: 'software',
    platforms: [...EXTENSION, ...MOBILE],
    services: ['Swap', 'Staking', 'NFT Support'],
  },
  {
    name: 'Solflare',
    url: 'https://solflare.com',
    type: 'software',
    platforms: [...EXTENSION, ...MOBILE],
    services: ['Staking', 'Swap'],
  },
  {
    name: 'TokenPocket',
    url: 'https://www.tokenpocket.pro',
    type: 'software',
    platforms: [...MOBILE, 'Chrome Extension'],
    services: ['Swap', 'dApp Browser'],
  },
  {
    name: 'Brave Wallet',
    url: 'https://brave.com/wallet',
    type: 'software',
    platforms: ['Brave Browser', ...MOBILE],
    services: ['Swap', 'dApp Browser'],
  },
];

export interface RealProtocol extends CatalogFlagsSeed {
  name: string;
  url: string;
  category: string;
  tvl: number;
}

// prettier-ignore
export const REAL_PROTOCOLS: readonly RealProtocol[] = [
  { name: 'Aave', url: 'https://aave.com', category: 'Lending', tvl: 24_310_004_112.37 },
  { name: 'Lido', url: 'https://lido.fi', category: 'Liquid Staking', tvl: 22_150_882_031.5 },
  { name: 'EigenLayer', url: 'https://www.eigenlayer.xyz', category: 'Restaking', tvl: 11_204_551_870.12 },
  { name: 'Ether.fi', url: 'https://www.ether.fi', category: 'Liquid Restaking', tvl: 6_014_220_300.8 },
  { name: 'Ethena', url: 'https://ethena.fi', category: 'Basis Trading', tvl: 5_912_000_410.04 },
  { name: 'MakerDAO', url: 'https://makerdao.com', category: 'CDP', tvl: 5_503_117_902.66 },
  { name: 'Uniswap', url: 'https://uniswap.org', category: 'DEX', tvl: 4_811_440_025.19 },
  { name: 'Pendle', url: 'https://www.pendle.finance', category: 'Yield', tvl: 4_602_300_118.9 },
  { name: 'Morpho', url: 'https://morpho.org', category: 'Lending', tvl: 4_010_559_371.21 },
  { name: 'JustLend', url: 'https://justlend.org', category: 'Lending', tvl: 3_640_100_002.5 },
  { name: 'Spark', url: 'https://spark.fi', category: 'Lending', tvl: 3_512_984_220.07 },
  { name: 'Compound', url: 'https://compound.finance', category: 'Lending', tvl: 2_604_117_330.45 },
  // Real rename: SushiSwap became Sushi (2023).
  { name: 'Sushi', url: 'https://www.sushi.com', category: 'DEX', tvl: 251_008_114.3, previous: ['sushiswap'] },
  { name: 'Jito', url: 'https://www.jito.network', category: 'Liquid Staking', tvl: 2_514_200_781.02 },
  { name: 'Jupiter', url: 'https://jup.ag', category: 'DEX', tvl: 2_488_000_123.77 },
  // Collapsed or shut down: kept in the catalogue, delisted from the API.
  {
    name: 'Anchor Protocol',
    url: 'https://www.anchorprotocol.com',
    category: 'Lending',
    tvl: 17_100_000_000,
    delisted: true,
  },
  { name: 'Radiant', url: 'https://radiant.capital', category: 'Lending', tvl: 5_120_400.11, hidden: true },
  { name: 'Curve', url: 'https://curve.fi', category: 'DEX', tvl: 2_203_870_412.58 },
  { name: 'Kamino', url: 'https://kamino.finance', category: 'Lending', tvl: 2_190_331_006.3 },
  { name: 'Venus', url: 'https://venus.io', category: 'Lending', tvl: 1_902_118_440.09 },
  { name: 'Rocket Pool', url: 'https://rocketpool.net', category: 'Liquid Staking', tvl: 1_811_420_116.62 },
  { name: 'Raydium', url: 'https://raydium.io', category: 'DEX', tvl: 1_790_023_331.4 },
  { name: 'PancakeSwap', url: 'https://pancakeswap.finance', category: 'DEX', tvl: 1_702_558_301.18 },
  { name: 'Marinade', url: 'https://marinade.finance', category: 'Liquid Staking', tvl: 1_488_104_912.33 },
  { name: 'Multichain', url: 'https://multichain.org', category: 'Bridge', tvl: 1_500_000_000, delisted: true },
  { name: 'Ondo', url: 'https://ondo.finance', category: 'Real World Assets', tvl: 1_330_112_004.5 },
  // Real rename: Instadapp became Fluid (2024).
  { name: 'Fluid', url: 'https://fluid.io', category: 'Lending', tvl: 1_204_771_300.02, previous: ['instadapp'] },
  { name: 'Kelp', url: 'https://kelpdao.xyz', category: 'Liquid Restaking', tvl: 1_198_004_223.6 },
  { name: 'Convex', url: 'https://www.convexfinance.com', category: 'Yield', tvl: 1_004_118_557.81 },
  { name: 'Balancer', url: 'https://balancer.fi', category: 'DEX', tvl: 702_331_008.12 },
  // Same TVL on purpose: exercises the slug tie-break of the protocol list.
  { name: 'Benqi', url: 'https://benqi.fi', category: 'Lending', tvl: 612_500_000 },
  { name: 'Euler', url: 'https://www.euler.finance', category: 'Lending', tvl: 612_500_000 },
  { name: 'Renzo', url: 'https://www.renzoprotocol.com', category: 'Liquid Restaking', tvl: 598_330_120.4 },
  { name: 'Frax', url: 'https://frax.finance', category: 'CDP', tvl: 402_110_558.7 },
  { name: 'GMX', url: 'https://gmx.io', category: 'Derivatives', tvl: 398_004_126.15 },
  { name: 'Stargate', url: 'https://stargate.finance', category: 'Bridge', tvl: 351_220_900.3 },
  { name: 'Yearn', url: 'https://yearn.fi', category: 'Yield Aggregator', tvl: 301_447_002.84 },
  { name: 'Liquity', url: 'https://www.liquity.org', category: 'CDP', tvl: 254_880_313.06 },
  { name: 'Abracadabra', url: 'https://abracadabra.money', category: 'CDP', tvl: 101_330_440.91 },
  { name: 'Notional', url: 'https://www.notional.finance', category: 'Lending', tvl: 52_104_330.5 },
];

/** Word stock for synthesized names ("Nova Token 12", "Helix Markets", "Cobalt Vault"). */
export const NAME_ROOTS: readonly string[] = [
  'Apex',
  'Arcadia',
  'Atlas',
  'Aurora',
  'Beacon',
  'Bolt',
  'Cobalt',
  'Comet',
  'Crest',
  'Delta',
  'Echo',
  'Ember',
  'Flux',
  'Helix',
  'Horizon',
  'Ion',
  'Kite',
  'Lumen',
  'Meridian',
  'Nimbus',
  'Nova',
  'Onyx',
  'Orbit',
  'Pulse',
  'Quanta',
  'Sable',
  'Solace',
  'Summit',
  'Tidal',
  'Vertex',
  'Zenith',
  'Harbor',
  'Granite',
  'Cascade',
  'Falcon',
  'Prism',
];

export const EXCHANGE_SUFFIXES: readonly string[] = ['Exchange', 'Markets', 'Trade', 'Pro', 'X'];
export const WALLET_SUFFIXES: readonly string[] = ['Wallet', 'Vault', 'Keys', 'Safe'];
export const PROTOCOL_SUFFIXES: readonly string[] = ['Finance', 'Protocol', 'Lend', 'Swap', 'Yield', 'Staking', 'DAO'];
export const TOKEN_SUFFIXES: readonly string[] = ['Token', 'Coin', 'Network', 'Chain', 'Finance'];

export const PROTOCOL_CATEGORIES: readonly string[] = [
  'Lending',
  'DEX',
  'Liquid Staking',
  'Yield',
  'Yield Aggregator',
  'CDP',
  'Derivatives',
  'Bridge',
  'Restaking',
  'Real World Assets',
];
