import RideStore
print("placeholder")
