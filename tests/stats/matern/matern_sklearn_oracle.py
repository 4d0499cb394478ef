# The independent oracle of test_matern_fit: scikit-learn's GaussianProcessRegressor with
# ConstantKernel(sigma2) * Matern(length_scale=rho, nu) + WhiteKernel(sigma2_e) on points X,
# its log_marginal_likelihood at those parameters (zero mean, y as given).
# usage: matern_sklearn_oracle.py points.txt y.txt sigma2 rho nu sigma2_e  -> prints the value
import sys
import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

pts = np.loadtxt(sys.argv[1], ndmin=2)
y = np.loadtxt(sys.argv[2])
s2, rho, nu, s2e = map(float, sys.argv[3:7])
k = ConstantKernel(s2, "fixed") * Matern(length_scale=rho, nu=nu, length_scale_bounds="fixed") + WhiteKernel(s2e, "fixed")
gp = GaussianProcessRegressor(kernel=k, optimizer=None, normalize_y=False, alpha=0.0).fit(pts, y)
print(repr(gp.log_marginal_likelihood_value_))
