module.exports = { ...require('./sum.js'), ...require('./greet.js'), ...require('./avg.js') };
